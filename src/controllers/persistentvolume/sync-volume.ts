/**
 * syncVolume (spec §1.8): keeps a volume's phase in line with its claimRef and its claim. Unclaimed
 * or user-reserved volumes are Available; a volume whose claim is gone is Released and its reclaim
 * policy runs; a volume whose claim went to another volume is released (provisioned for it, Delete)
 * or unbound for someone else.
 */
import { isNotFound } from "../../api/errors.ts";
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { volumeModeMismatch } from "../../api/storage/pv-helpers.ts";
import {
  annDynamicallyProvisioned,
  claimKeyOf,
  claimNameOf,
  claimRefKeyOf,
  hasAnnotation,
  volumeNameOf,
} from "./annotations.ts";
import { unbindVolume } from "./bind.ts";
import type { PvControllerState } from "./controller-state.ts";
import { EventReason, volumeModeMismatchOnClaimMessage, volumeModeMismatchOnVolumeMessage } from "./events.ts";
import { reclaimPolicyOf, reclaimVolume, syncDeletionFinalizer } from "./reclaim.ts";
import { updateVolumePhase } from "./status-writes.ts";

export async function syncVolume(state: PvControllerState, given: PersistentVolume): Promise<void> {
  const volume = await syncDeletionFinalizer(state, given);
  const claimRef = volume.spec?.claimRef;
  // Unused, or reserved by the user for a claim whose sync will bind it.
  if (claimRef == null || !claimRef.uid) {
    await updateVolumePhase(state, volume, "Available", "");
    return;
  }
  const claim = await findBoundClaim(state, volume);
  if (claim === undefined) {
    await releaseAndReclaim(state, volume);
    return;
  }
  const boundTo = claim.spec?.volumeName ?? "";
  if (boundTo === "") await handOverToClaimSync(state, volume, claim);
  else if (boundTo === volumeNameOf(volume)) await updateVolumePhase(state, volume, "Bound", "");
  else await handleClaimBoundElsewhere(state, volume);
}

/**
 * The claim the volume's claimRef names, with the claimRef's UID; undefined when it is gone or was
 * replaced by a new claim of the same name. A claim missing from the cache is looked up in the
 * informer and then the API first, so a claim made by someone else a moment ago is not taken for a
 * deleted one and its volume reclaimed by mistake.
 */
async function findBoundClaim(
  state: PvControllerState,
  volume: PersistentVolume,
): Promise<PersistentVolumeClaim | undefined> {
  const claimKey = claimRefKeyOf(volume);
  const uid = volume.spec?.claimRef?.uid;
  const phase = volume.status?.phase;
  let claim = state.claims.get(claimKey);
  if (claim === undefined && phase !== "Released" && phase !== "Failed") claim = await lookUpClaim(state, volume);
  if (claim === undefined || claim.metadata?.uid === uid) return claim;
  // The cache may hold an older claim of the same name; ask the API which claim exists now.
  const current = await readClaim(state, volume);
  return current?.metadata?.uid === uid ? current : undefined;
}

async function lookUpClaim(
  state: PvControllerState,
  volume: PersistentVolume,
): Promise<PersistentVolumeClaim | undefined> {
  const claimRef = volume.spec?.claimRef;
  return state.claimLister.get(claimRef?.namespace ?? "", claimRef?.name ?? "") ?? (await readClaim(state, volume));
}

async function readClaim(
  state: PvControllerState,
  volume: PersistentVolume,
): Promise<PersistentVolumeClaim | undefined> {
  const claimRef = volume.spec?.claimRef;
  try {
    return await state.client.persistentVolumeClaims.get(claimRef?.namespace ?? "", claimRef?.name ?? "");
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Released (a Failed volume keeps showing Failed while the policy is retried), then the policy. */
async function releaseAndReclaim(state: PvControllerState, volume: PersistentVolume): Promise<void> {
  const phase = volume.status?.phase;
  const released =
    phase === "Released" || phase === "Failed" ? volume : await updateVolumePhase(state, volume, "Released", "");
  await reclaimVolume(state, released);
}

/** The claim does not name this volume yet: its own sync finishes the binding, unless modes conflict. */
async function handOverToClaimSync(
  state: PvControllerState,
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
): Promise<void> {
  if (volumeModeMismatch(claim, volume)) {
    const onVolume = volumeModeMismatchOnVolumeMessage(claimNameOf(claim));
    state.recorder.event(volume, "Warning", EventReason.volumeMismatch, onVolume);
    const onClaim = volumeModeMismatchOnClaimMessage(volumeNameOf(volume));
    state.recorder.event(claim, "Warning", EventReason.volumeMismatch, onClaim);
    return;
  }
  state.enqueueClaim(claimKeyOf(claim));
}

/**
 * The claim is bound to another volume. A volume provisioned for it with policy Delete is not
 * needed: release and delete it. Otherwise undo the reservation so the volume can serve others.
 */
async function handleClaimBoundElsewhere(state: PvControllerState, volume: PersistentVolume): Promise<void> {
  if (hasAnnotation(volume, annDynamicallyProvisioned) && reclaimPolicyOf(volume) === "Delete") {
    await releaseAndReclaim(state, volume);
    return;
  }
  // Bound by the controller: the binding goes; reserved by the user: the name stays, the UID goes.
  await unbindVolume(state, volume);
}
