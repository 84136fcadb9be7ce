/**
 * The VolumeSpec of a pod volume (Kubernetes' CreateVolumeSpec, attach/detach util.go): a claim —
 * written in the pod or created for a generic ephemeral volume — is followed to its bound PV
 * through the informer caches; an inline volume is its own spec. Errors say why the volume cannot
 * be processed yet (claim unbound, PV missing) and are retried on the next event or populator pass.
 */
import type { PersistentVolume, PersistentVolumeClaim, Pod, Volume } from "kubernetes-types/core/v1.js";
import { errorMessage } from "../../runtime/error-message.ts";
import { VolumeSpec } from "../../volume/spec.ts";

/** The cached objects the lookup reads. */
export interface VolumeSpecListers {
  claim(namespace: string, name: string): PersistentVolumeClaim | undefined;
  persistentVolume(name: string): PersistentVolume | undefined;
}

function claimNameOf(pod: Pod, volume: Volume): string | undefined {
  if (volume.persistentVolumeClaim) return volume.persistentVolumeClaim.claimName;
  if (volume.ephemeral) return `${pod.metadata?.name ?? ""}-${volume.name}`;
  return undefined;
}

function boundClaim(listers: VolumeSpecListers, namespace: string, name: string): PersistentVolumeClaim {
  const claim = listers.claim(namespace, name);
  if (claim === undefined) throw new Error(`failed to find PVC ${namespace}/${name} in PVCInformer cache`);
  const volumeName = claim.spec?.volumeName ?? "";
  if (claim.status?.phase !== "Bound" || volumeName === "") {
    throw new Error(
      `PVC ${namespace}/${name} has non-bound phase ("${claim.status?.phase ?? ""}") or empty pvc.Spec.VolumeName ("${volumeName}")`,
    );
  }
  return claim;
}

function boundVolume(listers: VolumeSpecListers, claim: PersistentVolumeClaim): PersistentVolume {
  const name = claim.spec?.volumeName ?? "";
  const pv = listers.persistentVolume(name);
  if (pv === undefined) throw new Error(`failed to find PV "${name}" in PV informer cache`);
  const claimRef = pv.spec?.claimRef;
  if (claimRef === undefined) {
    throw new Error(
      `found PV object "${name}" but it has a nil pv.Spec.ClaimRef indicating it is not yet bound to the claim`,
    );
  }
  if (claimRef.uid !== claim.metadata?.uid) {
    throw new Error(
      `found PV object "${name}" but its pv.Spec.ClaimRef.UID ("${claimRef.uid ?? ""}") does not point to claim.UID ("${claim.metadata?.uid ?? ""}")`,
    );
  }
  return pv;
}

export function volumeSpecFromPod(pod: Pod, volume: Volume, listers: VolumeSpecListers): VolumeSpec {
  const claimName = claimNameOf(pod, volume);
  if (claimName === undefined) return VolumeSpec.fromVolume(volume);
  const namespace = pod.metadata?.namespace ?? "";
  try {
    const claim = boundClaim(listers, namespace, claimName);
    return VolumeSpec.fromPersistentVolume(
      boundVolume(listers, claim),
      volume.persistentVolumeClaim?.readOnly ?? false,
    );
  } catch (err) {
    throw new Error(`error processing PVC ${namespace}/${claimName}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}
