/**
 * The PV of a freshly provisioned asset, and saving it: the PV create is tried 5 times 10 s apart;
 * when it cannot be saved the asset would be orphaned, so it is deleted again (also up to 5 times)
 * and the claim's events say what happened.
 */

import { isAlreadyExists } from "../../api/errors.ts";
import { referenceTo } from "../../api/events/object-reference.ts";
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from "../../api/objects.ts";
import { claimClassName } from "../../api/storage/pv-helpers.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import {
  annBoundByController,
  annDynamicallyProvisioned,
  annotationYes,
  claimKeyOf,
  pvDeletionInTreeProtectionFinalizer,
} from "./annotations.ts";
import type { PvControllerState } from "./controller-state.ts";
import {
  EventReason,
  provisionedVolumeNotSavedMessage,
  provisioningCleanupFailedMessage,
  provisioningSucceededMessage,
} from "./events.ts";
import type { ProvisionedVolume, Provisioner } from "./provisioner.ts";

/** The StorageClass API default for reclaimPolicy. */
const defaultClassReclaimPolicy = "Delete";

interface ProvisionedVolumeParts {
  claim: PersistentVolumeClaim;
  pvName: string;
  provisioner: Provisioner;
  storageClass: StorageClass;
  provisioned: ProvisionedVolume;
}

/**
 * The PV for a new asset: bound to the claim, in its class, marked as chosen by the controller and
 * made by `provisioner`, and with the controller's finalizer when the asset is to be deleted with it.
 */
export function newProvisionedVolume(parts: ProvisionedVolumeParts): PersistentVolume {
  const { claim, pvName, provisioner, storageClass, provisioned } = parts;
  const reclaimPolicy = storageClass.reclaimPolicy ?? defaultClassReclaimPolicy;
  const mountOptions = storageClass.mountOptions ?? [];
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: {
      name: pvName,
      ...(provisioned.labels === undefined ? {} : { labels: { ...provisioned.labels } }),
      annotations: { [annBoundByController]: annotationYes, [annDynamicallyProvisioned]: provisioner.name },
      ...(reclaimPolicy === "Delete" ? { finalizers: [pvDeletionInTreeProtectionFinalizer] } : {}),
    },
    spec: {
      ...provisioned.source,
      capacity: { storage: provisioned.capacity },
      accessModes: [...(claim.spec?.accessModes ?? [])],
      persistentVolumeReclaimPolicy: reclaimPolicy,
      storageClassName: claimClassName(claim),
      claimRef: referenceTo(claim),
      ...(claim.spec?.volumeMode ? { volumeMode: claim.spec.volumeMode } : {}),
      ...(mountOptions.length === 0 ? {} : { mountOptions: [...mountOptions] }),
      ...(provisioned.nodeAffinity === undefined ? {} : { nodeAffinity: provisioned.nodeAffinity }),
    },
    status: { phase: "Bound" },
  };
}

/**
 * Creates the PV, retrying 5 times 10 s apart. If it still cannot be saved the asset would be
 * orphaned, so it is deleted (again up to 5 times), and the user is told either way.
 */
export async function saveProvisionedVolume(
  state: PvControllerState,
  claim: PersistentVolumeClaim,
  provisioner: Provisioner,
  volume: PersistentVolume,
): Promise<void> {
  const saveError = await retryEvery(state, async () => {
    try {
      state.volumes.storeIfNotOlder(await state.client.persistentVolumes.create(volume));
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  });
  const claimKey = claimKeyOf(claim);
  const volumeName = volume.metadata?.name ?? "";
  if (saveError === undefined) {
    const message = provisioningSucceededMessage(volumeName, provisioner.name);
    state.recorder.event(claim, "Normal", EventReason.provisioningSucceeded, message);
    return;
  }
  const notSaved = provisionedVolumeNotSavedMessage(claimKey, errorMessage(saveError));
  state.recorder.event(claim, "Warning", EventReason.provisioningFailed, notSaved);
  const deleteError = await retryEvery(state, () => provisioner.delete(volume));
  if (deleteError === undefined) return;
  const cleanupFailed = provisioningCleanupFailedMessage(claimKey, errorMessage(deleteError));
  state.recorder.event(claim, "Warning", EventReason.provisioningCleanupFailed, cleanupFailed);
}

/** Runs `attempt` up to provisionedPvCreateRetries times, sleeping the interval after each failure. */
async function retryEvery(state: PvControllerState, attempt: () => Promise<void>): Promise<unknown> {
  let lastError: unknown;
  for (let tries = 0; tries < state.timers.provisionedPvCreateRetries; tries++) {
    try {
      await attempt();
      return undefined;
    } catch (error) {
      lastError = error;
      state.logger.info("provisioned volume step failed; retrying", { error: errorMessage(error), attempt: tries + 1 });
      await state.clock.sleep(state.timers.provisionedPvCreateRetryIntervalMs);
    }
  }
  return lastError ?? new Error("no attempt was made: provisionedPvCreateRetries is 0");
}
