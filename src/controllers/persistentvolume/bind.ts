/**
 * Binding a claim and a volume: four API writes in a fixed order (spec §1.5), each made only when
 * it changes something, so a half-finished bind is completed by the next sync and a finished one
 * costs nothing:
 *   1. volume spec: claimRef (+ bound-by-controller when the controller chose the pair);
 *   2. volume status: Bound;
 *   3. claim spec: volumeName (+ bound-by-controller) and bind-completed;
 *   4. claim status: Bound, access modes, capacity.
 * The first failing write stops the bind; its error goes back to the sync. The volume worker may
 * write the volume between two of these writes (its phase, on seeing write 1): a status write that
 * conflicts for that reason is made again from the version the controller's cache now holds.
 */
import { clone } from "../../api/client/copy.ts";
import { isConflict } from "../../api/errors.ts";
import { referenceTo } from "../../api/events/object-reference.ts";
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { isVolumeBoundToClaim } from "../../api/storage/pv-helpers.ts";
import { annBindCompleted, annBoundByController, annotationYes, hasAnnotation, volumeNameOf } from "./annotations.ts";
import type { PvControllerState } from "./controller-state.ts";
import { updateClaimStatus, updateVolumePhase } from "./status-writes.ts";

export async function bind(
  state: PvControllerState,
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
): Promise<void> {
  const boundVolume = await bindVolumeToClaim(state, volume, claim);
  const bound = await fromNewestOnConflict(
    (current) => state.volumes.newest(current),
    boundVolume,
    (current) => {
      if (!isVolumeBoundToClaim(current, claim)) {
        throw new Error(`volume "${volumeNameOf(current)}" was given to another claim during the bind`);
      }
      return updateVolumePhase(state, current, "Bound", "");
    },
  );
  const boundClaim = await bindClaimToVolume(state, claim, bound);
  await fromNewestOnConflict(
    (current) => state.claims.newest(current),
    boundClaim,
    (current) => updateClaimStatus(state, current, "Bound", bound),
  );
}

/**
 * Runs `write` from `object`; if that conflicts because the other worker has written the object
 * meanwhile (its result is in the controller's cache), runs it once more from that newer version.
 */
async function fromNewestOnConflict<T>(
  newest: (object: T) => T,
  object: T,
  write: (object: T) => Promise<T>,
): Promise<T> {
  try {
    return await write(object);
  } catch (error) {
    const fresher = newest(object);
    if (!isConflict(error) || fresher === object) throw error;
    return write(fresher);
  }
}

/** Write 1: the volume's claimRef points at the claim (name, namespace and UID). */
async function bindVolumeToClaim(
  state: PvControllerState,
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
): Promise<PersistentVolume> {
  const chosenByController = !isVolumeBoundToClaim(volume, claim);
  const draft = clone(volume);
  const spec = { ...(draft.spec ?? {}) };
  let dirty = false;
  const claimRef = spec.claimRef;
  if (
    claimRef?.name !== claim.metadata?.name ||
    claimRef?.namespace !== claim.metadata?.namespace ||
    (claimRef?.uid ?? "") !== (claim.metadata?.uid ?? "")
  ) {
    spec.claimRef = referenceTo(claim);
    dirty = true;
  }
  if (chosenByController && !hasAnnotation(volume, annBoundByController)) {
    draft.metadata = {
      ...draft.metadata,
      annotations: { ...draft.metadata?.annotations, [annBoundByController]: annotationYes },
    };
    dirty = true;
  }
  if (!dirty) return volume;
  draft.spec = spec;
  const written = await state.client.persistentVolumes.update(draft);
  state.volumes.storeIfNotOlder(written);
  return written;
}

/** Write 3: the claim names the volume and says the binding is complete. */
async function bindClaimToVolume(
  state: PvControllerState,
  claim: PersistentVolumeClaim,
  volume: PersistentVolume,
): Promise<PersistentVolumeClaim> {
  const volumeName = volumeNameOf(volume);
  const chosenByController = claim.spec?.volumeName !== volumeName;
  const annotations: Record<string, string> = { ...claim.metadata?.annotations };
  let dirty = false;
  if (chosenByController && !hasAnnotation(claim, annBoundByController)) {
    annotations[annBoundByController] = annotationYes;
    dirty = true;
  }
  if (!hasAnnotation(claim, annBindCompleted)) {
    annotations[annBindCompleted] = annotationYes;
    dirty = true;
  }
  if (chosenByController) dirty = true;
  if (!dirty) return claim;
  const draft = clone(claim);
  draft.metadata = { ...draft.metadata, annotations };
  draft.spec = { ...draft.spec, volumeName };
  const written = await state.client.persistentVolumeClaims.update(draft);
  state.claims.storeIfNotOlder(written);
  return written;
}

/**
 * Releases a volume for another claim (unbindVolume): a binding the controller made is removed with
 * its annotation; a claimRef the user wrote keeps the name and loses only the UID. Then Available.
 */
export async function unbindVolume(state: PvControllerState, volume: PersistentVolume): Promise<void> {
  const draft = clone(volume);
  if (hasAnnotation(volume, annBoundByController)) {
    draft.spec = { ...draft.spec };
    delete draft.spec.claimRef;
    const annotations = { ...draft.metadata?.annotations };
    delete annotations[annBoundByController];
    draft.metadata = { ...draft.metadata, annotations };
    if (Object.keys(annotations).length === 0) delete draft.metadata.annotations;
  } else {
    const claimRef = { ...draft.spec?.claimRef };
    delete claimRef.uid;
    draft.spec = { ...draft.spec, claimRef };
  }
  const written = await state.client.persistentVolumes.update(draft);
  state.volumes.storeIfNotOlder(written);
  await updateVolumePhase(state, written, "Available", "");
}
