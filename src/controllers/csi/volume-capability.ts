/**
 * Kubernetes access modes and volume modes in CSI terms (csi-lib-utils `accessmodes`, the
 * sidecars' GetVolumeCapabilities). A driver with the SINGLE_NODE_MULTI_WRITER controller
 * capability gets the finer single-node modes; others get the CSI 1.0 ones.
 */
import type { PersistentVolumeClaimSpec, PersistentVolumeSpec } from "kubernetes-types/core/v1.js";
import type { AccessModeName, VolumeCapability } from "../../csi/proto/types.ts";

const blockVolumeMode = "Block";

/**
 * The one CSI access mode for a set of Kubernetes access modes (ToCSIAccessMode). ReadWriteMany
 * wins over the others; ReadOnlyMany with ReadWriteOnce has no CSI equivalent.
 */
export function csiAccessModeFor(accessModes: readonly string[], singleNodeMultiWriter: boolean): AccessModeName {
  const modes = new Set(accessModes);
  if (modes.has("ReadWriteOncePod")) {
    if (modes.size > 1) {
      throw new Error(
        "Kubernetes does not support use of ReadWriteOncePod with other access modes on the same PersistentVolume",
      );
    }
    return singleNodeMultiWriter ? "SINGLE_NODE_SINGLE_WRITER" : "SINGLE_NODE_WRITER";
  }
  if (modes.has("ReadWriteMany")) return "MULTI_NODE_MULTI_WRITER";
  if (modes.has("ReadOnlyMany") && modes.has("ReadWriteOnce")) {
    throw new Error("CSI does not support ReadOnlyMany and ReadWriteOnce on the same PersistentVolume");
  }
  if (modes.has("ReadOnlyMany")) return "MULTI_NODE_READER_ONLY";
  if (modes.has("ReadWriteOnce")) return singleNodeMultiWriter ? "SINGLE_NODE_MULTI_WRITER" : "SINGLE_NODE_WRITER";
  throw new Error(`unsupported AccessMode combination: [${accessModes.join(" ")}]`);
}

/** Block access for Block volumes, otherwise a mount with the filesystem type and mount options. */
function accessTypeFor(
  volumeMode: string | undefined,
  fsType: string,
  mountFlags: readonly string[],
): Pick<VolumeCapability, "block" | "mount"> {
  if (volumeMode === blockVolumeMode) return { block: {} };
  return { mount: { fsType, mountFlags: [...mountFlags], volumeMountGroup: "" } };
}

/**
 * What CreateVolume asks for: one capability per access mode of the claim, each mapped on its own,
 * with the class's mount options as mount flags.
 */
export function capabilitiesForClaim(
  claimSpec: PersistentVolumeClaimSpec,
  fsType: string,
  mountOptions: readonly string[],
  singleNodeMultiWriter: boolean,
): VolumeCapability[] {
  const accessType = accessTypeFor(claimSpec.volumeMode, fsType, mountOptions);
  return (claimSpec.accessModes ?? []).map((mode) => ({
    ...accessType,
    accessMode: { mode: csiAccessModeFor([mode], singleNodeMultiWriter) },
  }));
}

/** What ControllerPublishVolume asks for: the PV's access modes as one capability. */
export function capabilityForVolume(spec: PersistentVolumeSpec, singleNodeMultiWriter: boolean): VolumeCapability {
  const accessType = accessTypeFor(spec.volumeMode, spec.csi?.fsType ?? "", spec.mountOptions ?? []);
  return { ...accessType, accessMode: { mode: csiAccessModeFor(spec.accessModes ?? [], singleNodeMultiWriter) } };
}
