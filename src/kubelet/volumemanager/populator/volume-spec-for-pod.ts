/**
 * Turns one pod volume into the spec the plugins mount (the populator's createVolumeSpec): an inline
 * volume is used as it is; a claim (or a generic ephemeral volume's claim) is followed through the
 * API server to its bound PersistentVolume, with Kubernetes' exact refusals. These errors are what a
 * user reads in `Unable to attach or mount volumes: ...` while the pod stays ContainerCreating.
 */
import type { PersistentVolume, PersistentVolumeClaim, Pod, Volume } from "kubernetes-types/core/v1.js";
import type { Client } from "../../../api/client/client.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import { VolumeSpec } from "../../../volume/spec.ts";
import type { PodVolumeNames } from "../pod-volume-names.ts";

/** The finalizer that keeps an in-use claim alive; a deleting claim without it must not be mounted. */
const pvcProtectionFinalizer = "kubernetes.io/pvc-protection";
/** The PV annotation whose value becomes a supplemental group of the pod's containers. */
const volumeGidAnnotation = "pv.beta.kubernetes.io/gid";

interface PodVolumeSpec {
  spec: VolumeSpec;
  /** The PV's gid annotation, "" when absent. */
  volumeGidValue: string;
  /** The bound claim, for a volume that names one (its capacity tells whether the filesystem must grow). */
  claim?: PersistentVolumeClaim;
}

/** A claim the pod names: its own claim, or the one Kubernetes creates for a generic ephemeral volume. */
function claimOf(pod: Pod, volume: Volume): { claimName: string; readOnly: boolean; ephemeral: boolean } | undefined {
  if (volume.persistentVolumeClaim !== undefined) {
    return {
      claimName: volume.persistentVolumeClaim.claimName,
      readOnly: volume.persistentVolumeClaim.readOnly ?? false,
      ephemeral: false,
    };
  }
  if (volume.ephemeral !== undefined) {
    return { claimName: `${pod.metadata?.name ?? ""}-${volume.name}`, readOnly: false, ephemeral: true };
  }
  return undefined;
}

async function boundClaim(client: Client, namespace: string, claimName: string): Promise<PersistentVolumeClaim> {
  let pvc: PersistentVolumeClaim;
  try {
    pvc = await client.persistentVolumeClaims.get(namespace, claimName);
  } catch (err) {
    throw new Error(`failed to fetch PVC from API server: ${errorMessage(err)}`, { cause: err });
  }
  const finalizers = pvc.metadata?.finalizers ?? [];
  if (pvc.metadata?.deletionTimestamp !== undefined && !finalizers.includes(pvcProtectionFinalizer)) {
    throw new Error("PVC is being deleted");
  }
  if (pvc.status?.phase !== "Bound") throw new Error("PVC is not bound");
  if (!pvc.spec?.volumeName) throw new Error("PVC has empty pvc.Spec.VolumeName");
  return pvc;
}

/** An ephemeral volume's claim must be controlled by the pod, or it belongs to someone else. */
function checkClaimIsForPod(pod: Pod, pvc: PersistentVolumeClaim): void {
  const podUID = pod.metadata?.uid;
  const owned = (pvc.metadata?.ownerReferences ?? []).some(
    (owner) => owner.controller === true && owner.uid === podUID,
  );
  if (!owned) {
    throw new Error(
      `PVC ${pvc.metadata?.namespace}/${pvc.metadata?.name} was not created for pod ${pod.metadata?.namespace}/${pod.metadata?.name} (pod is not owner)`,
    );
  }
}

async function boundVolume(client: Client, pvName: string, claimUID: string): Promise<PersistentVolume> {
  let pv: PersistentVolume;
  try {
    pv = await client.persistentVolumes.get("", pvName);
  } catch (err) {
    throw new Error(`failed to fetch PV ${pvName} from API server: ${errorMessage(err)}`, { cause: err });
  }
  const claimRef = pv.spec?.claimRef;
  if (claimRef === undefined) {
    throw new Error(
      `found PV object ${pvName} but it has a nil pv.Spec.ClaimRef indicating it is not yet bound to the claim`,
    );
  }
  if (claimRef.uid !== claimUID) {
    throw new Error(
      `found PV object ${pvName} but its pv.Spec.ClaimRef.UID ${claimRef.uid ?? ""} does not point to claim.UID ${claimUID}`,
    );
  }
  return pv;
}

/** A Block PV used through volumeMounts, or a Filesystem one through volumeDevices, is refused. */
function checkVolumeMode(volumeName: string, spec: VolumeSpec, names: PodVolumeNames): void {
  const mode = spec.volumeMode();
  if (names.mounts.has(volumeName) && mode !== "Filesystem") {
    throw new Error(`volume ${volumeName} has volumeMode ${mode}, but is specified in volumeMounts`);
  }
  if (names.devices.has(volumeName) && mode !== "Block") {
    throw new Error(`volume ${volumeName} has volumeMode ${mode}, but is specified in volumeDevices`);
  }
}

export async function volumeSpecForPod(
  client: Client,
  pod: Pod,
  volume: Volume,
  names: PodVolumeNames,
): Promise<PodVolumeSpec> {
  const claim = claimOf(pod, volume);
  if (claim === undefined) return { spec: VolumeSpec.fromVolume(volume), volumeGidValue: "" };
  const namespace = pod.metadata?.namespace ?? "";
  const wrap = (err: unknown): Error =>
    new Error(`error processing PVC ${namespace}/${claim.claimName}: ${errorMessage(err)}`, { cause: err });

  let pvc: PersistentVolumeClaim;
  try {
    pvc = await boundClaim(client, namespace, claim.claimName);
  } catch (err) {
    throw wrap(err);
  }
  if (claim.ephemeral) checkClaimIsForPod(pod, pvc);
  let pv: PersistentVolume;
  try {
    pv = await boundVolume(client, pvc.spec?.volumeName ?? "", pvc.metadata?.uid ?? "");
  } catch (err) {
    throw wrap(err);
  }
  const spec = VolumeSpec.fromPersistentVolume(pv, claim.readOnly);
  checkVolumeMode(volume.name, spec, names);
  return { spec, volumeGidValue: pv.metadata?.annotations?.[volumeGidAnnotation] ?? "", claim: pvc };
}
