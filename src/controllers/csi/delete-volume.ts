/**
 * Deleting what this provisioner provisioned (the library's shouldDelete / deleteVolumeOperation
 * with external-provisioner's Delete): a Released PV with reclaim policy Delete whose
 * `pv.kubernetes.io/provisioned-by` (or `migrated-to`) names this driver. The volume must not be
 * attached anywhere; then DeleteVolume, then the PV object is deleted and the provisioner's
 * finalizer removed. A failed DeleteVolume is a `VolumeFailedDelete` warning on the PV and is
 * retried with backoff.
 */

import { isNotFound } from "../../api/errors.ts";
import { volumeAttachmentsByPersistentVolume } from "../../api/informer/indexes.ts";
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { annDynamicallyProvisioned, annMigratedTo, provisionerVolumeFinalizer } from "./constants.ts";
import { callWithTimeout } from "./driver-connection.ts";
import { finalizersWithout, hasFinalizer } from "./finalizers.ts";
import { ProvisionerEventReason } from "./provisioner-events.ts";
import type { ProvisionerState } from "./provisioner-state.ts";
import { readSecretData } from "./secret-data.ts";
import { provisionerSecretKeys, secretReferenceFor } from "./secret-references.ts";

export function isProvisionedBy(state: ProvisionerState, volume: PersistentVolume): boolean {
  const annotations = volume.metadata?.annotations ?? {};
  return annotations[annDynamicallyProvisioned] === state.driverName || annotations[annMigratedTo] === state.driverName;
}

export function shouldDelete(state: ProvisionerState, volume: PersistentVolume): boolean {
  // Deleted already, and the finalizer that proves the asset is still there is gone.
  if (volume.metadata?.deletionTimestamp && !hasFinalizer(volume, provisionerVolumeFinalizer)) return false;
  if (volume.status?.phase !== "Released") return false;
  if (volume.spec?.persistentVolumeReclaimPolicy !== "Delete") return false;
  return isProvisionedBy(state, volume);
}

/** Re-reads the PV (it may have changed while queued), then deletes the asset and the PV. */
export async function deleteVolumeOperation(state: ProvisionerState, name: string): Promise<void> {
  const volume = await readVolume(state, name);
  if (volume === undefined || !shouldDelete(state, volume)) return;
  try {
    await deleteOnDriver(state, volume);
  } catch (error) {
    state.recorder.event(volume, "Warning", ProvisionerEventReason.volumeFailedDelete, errorMessage(error));
    throw error;
  }
  state.logger.info("volume deleted", { pv: name });
  try {
    await state.client.persistentVolumes.delete("", name);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  await removeProvisionerFinalizer(state, name);
}

async function readVolume(state: ProvisionerState, name: string): Promise<PersistentVolume | undefined> {
  try {
    return await state.client.persistentVolumes.get("", name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function deleteOnDriver(state: ProvisionerState, volume: PersistentVolume): Promise<void> {
  const name = volume.metadata?.name ?? "";
  const attachment = state.attachments.byIndex(volumeAttachmentsByPersistentVolume.name, name)[0];
  if (attachment !== undefined) {
    throw new Error(`persistentvolume ${name} is still attached to node ${attachment.spec?.nodeName ?? ""}`);
  }
  const volumeId = volume.spec?.csi?.volumeHandle;
  if (!volumeId) throw new Error(`persistentvolume ${name} has no spec.csi.volumeHandle: it is not a CSI volume`);
  const secrets = await deletionCredentials(state, volume);
  await callWithTimeout(state.clock, state.callTimeoutMs, () => state.driver.deleteVolume({ volumeId, secrets }));
}

/** The provisioner secret of the volume's class, when the class still exists and names one. */
async function deletionCredentials(state: ProvisionerState, volume: PersistentVolume): Promise<Record<string, string>> {
  const storageClass = state.classes.get("", volume.spec?.storageClassName ?? "");
  if (storageClass === undefined) return {};
  const claimRef = volume.spec?.claimRef;
  const claim: PersistentVolumeClaim = {
    metadata: { name: claimRef?.name ?? "", namespace: claimRef?.namespace ?? "" },
  };
  const parameters = storageClass.parameters ?? {};
  const reference = secretReferenceFor(provisionerSecretKeys, parameters, volume.metadata?.name ?? "", claim);
  if (reference === undefined) return {};
  return readSecretData(state.client, { namespace: reference.namespace ?? "", name: reference.name ?? "" });
}

async function removeProvisionerFinalizer(state: ProvisionerState, name: string): Promise<void> {
  try {
    await state.client.persistentVolumes.mutate("", name, (draft) => {
      if (!hasFinalizer(draft, provisionerVolumeFinalizer)) return;
      draft.metadata = { ...draft.metadata, finalizers: finalizersWithout(draft, provisionerVolumeFinalizer) };
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
