/**
 * What happens to a Released volume (spec §1.10, reclaimVolume): Retain keeps it; Delete deletes
 * the storage asset through its provisioner in `delete-<pv>[<uid>]`, then the PV object, and
 * removes the controller's finalizer; Recycle erases it for reuse (recycle.ts); any other policy
 * marks it Failed.
 */
import { clone } from "../../api/client/copy.ts";
import { isNotFound } from "../../api/errors.ts";
import type { PersistentVolume } from "../../api/objects.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { goQuote } from "../../runtime/go-quote.ts";
import {
  annDynamicallyProvisioned,
  annMigratedTo,
  annotationOf,
  hasFinalizer,
  inTreeProvisionerPrefix,
  pvDeletionInTreeProtectionFinalizer,
  volumeNameOf,
} from "./annotations.ts";
import type { PvControllerState } from "./controller-state.ts";
import { EventReason, unknownReclaimPolicyMessage } from "./events.ts";
import { DeletedVolumeInUseError, type Provisioner } from "./provisioner.ts";
import { recycleVolumeOperation } from "./recycle.ts";
import { updateVolumePhaseWithEvent } from "./status-writes.ts";
import { isVolumeReleased } from "./volume-released.ts";

/** The PersistentVolume API default for persistentVolumeReclaimPolicy. */
const defaultVolumeReclaimPolicy = "Retain";

export function reclaimPolicyOf(volume: PersistentVolume): string {
  return volume.spec?.persistentVolumeReclaimPolicy ?? defaultVolumeReclaimPolicy;
}

function volumeOperationName(verb: "delete" | "recycle", volume: PersistentVolume): string {
  return `${verb}-${volumeNameOf(volume)}[${volume.metadata?.uid ?? ""}]`;
}

export async function reclaimVolume(state: PvControllerState, volume: PersistentVolume): Promise<void> {
  // A CSI driver handles a migrated volume; the PV controller stands down.
  if (annotationOf(volume, annMigratedTo)) return;
  const policy = reclaimPolicyOf(volume);
  switch (policy) {
    case "Retain":
      return;
    case "Recycle":
      startOperation(state, volumeOperationName("recycle", volume), () => recycleVolumeOperation(state, volume));
      return;
    case "Delete":
      startOperation(state, volumeOperationName("delete", volume), () => deleteVolumeOperation(state, volume));
      return;
    default:
      await updateVolumePhaseWithEvent(state, volume, "Failed", {
        type: "Warning",
        reason: EventReason.volumeUnknownReclaimPolicy,
        message: unknownReclaimPolicyMessage,
      });
  }
}

function startOperation(state: PvControllerState, name: string, operation: () => Promise<void>): void {
  const refusal = state.operations.run(name, operation);
  if (refusal !== undefined) state.logger.debug("reclaim not started", { operationName: name, why: refusal.message });
}

async function deleteVolumeOperation(state: PvControllerState, volume: PersistentVolume): Promise<void> {
  const current = await readVolume(state, volumeNameOf(volume));
  if (current === undefined || !isVolumeReleased(state, current)) return;
  let deleted: boolean;
  try {
    deleted = await deleteStorageAsset(state, current);
  } catch (error) {
    await reportDeleteFailure(state, current, error);
    throw error;
  }
  // An external deleter owns this volume: it deletes the PV when it has deleted the asset.
  if (!deleted) return;
  try {
    await state.client.persistentVolumes.delete("", volumeNameOf(current));
  } catch (error) {
    // Tried again on the next sync of the volume.
    state.logger.info("could not delete the PV object", { volume: volumeNameOf(current), error: errorMessage(error) });
    return;
  }
  await removeDeletionProtectionFinalizer(state, volumeNameOf(current));
}

/** The volume as the API has it now, or undefined when it cannot be read (the next sync tries again). */
async function readVolume(state: PvControllerState, name: string): Promise<PersistentVolume | undefined> {
  try {
    return await state.client.persistentVolumes.get("", name);
  } catch (error) {
    state.logger.info("cannot read the volume to reclaim", { volume: name, error: errorMessage(error) });
    return undefined;
  }
}

/** A deleter that needs more time gets a Normal event; any other failure marks the volume Failed. */
async function reportDeleteFailure(state: PvControllerState, volume: PersistentVolume, error: unknown): Promise<void> {
  if (error instanceof DeletedVolumeInUseError) {
    state.recorder.event(volume, "Normal", EventReason.volumeDelete, errorMessage(error));
    return;
  }
  await updateVolumePhaseWithEvent(state, volume, "Failed", {
    type: "Warning",
    reason: EventReason.volumeFailedDelete,
    message: errorMessage(error),
  });
}

/**
 * Deletes the asset behind `volume`; false when an external provisioner is responsible for it.
 * Throws when no registered provisioner can delete it.
 */
async function deleteStorageAsset(state: PvControllerState, volume: PersistentVolume): Promise<boolean> {
  const provisioner = deleterFor(state, volume);
  if (provisioner === undefined) return false;
  await provisioner.delete(volume);
  return true;
}

/** findDeletablePlugin: the provisioner named on the volume, else one that recognises its source. */
function deleterFor(state: PvControllerState, volume: PersistentVolume): Provisioner | undefined {
  const provisionedBy = annotationOf(volume, annDynamicallyProvisioned) ?? "";
  if (provisionedBy !== "") {
    const named = state.provisioners.get(provisionedBy);
    if (named !== undefined) return named;
    if (!provisionedBy.startsWith(inTreeProvisionerPrefix)) return undefined;
    throw new Error(`no volume plugin matched name: ${provisionedBy}`);
  }
  const bySource = state.provisioners.forVolume(volume);
  if (bySource !== undefined) return bySource;
  throw new Error(
    `error getting deleter volume plugin for volume ${goQuote(volumeNameOf(volume))}: no deletable volume plugin matched`,
  );
}

async function removeDeletionProtectionFinalizer(state: PvControllerState, name: string): Promise<void> {
  try {
    await state.client.persistentVolumes.mutate("", name, (draft) => {
      if (!hasFinalizer(draft, pvDeletionInTreeProtectionFinalizer)) return;
      draft.metadata = {
        ...draft.metadata,
        finalizers: (draft.metadata?.finalizers ?? []).filter((f) => f !== pvDeletionInTreeProtectionFinalizer),
      };
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/**
 * Keeps the controller's finalizer in line with the reclaim policy of a volume an in-tree
 * provisioner made: present for Delete (so the asset is deleted even if the PV object goes first),
 * absent for Retain and Recycle. Returns the volume as written (or unchanged).
 */
export async function syncDeletionFinalizer(
  state: PvControllerState,
  volume: PersistentVolume,
): Promise<PersistentVolume> {
  const provisionedBy = annotationOf(volume, annDynamicallyProvisioned);
  if (provisionedBy === undefined || !state.provisioners.isInTree(provisionedBy)) return volume;
  const policy = reclaimPolicyOf(volume);
  const has = hasFinalizer(volume, pvDeletionInTreeProtectionFinalizer);
  const beingDeleted = volume.metadata?.deletionTimestamp != null;
  const add = policy === "Delete" && !has && !beingDeleted;
  const remove = (policy === "Retain" || policy === "Recycle") && has;
  if (!add && !remove) return volume;
  const draft = clone(volume);
  const others = (draft.metadata?.finalizers ?? []).filter((f) => f !== pvDeletionInTreeProtectionFinalizer);
  draft.metadata = { ...draft.metadata, finalizers: add ? [...others, pvDeletionInTreeProtectionFinalizer] : others };
  const written = await state.client.persistentVolumes.update(draft);
  state.volumes.storeIfNotOlder(written);
  return written;
}
