/**
 * The controller's status writes (updateClaimStatus, updateVolumePhase and their "WithEvent" forms):
 * each writes only when something changes, stores the result in the controller's cache at once, and
 * the "WithEvent" forms emit their event only on an actual phase change, so a claim that stays Lost
 * does not collect a new event every sync.
 */

import { clone } from "../../api/client/copy.ts";
import type { EventType } from "../../api/events/recorder.ts";
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { jsonEqual } from "../../api/store/json-equal.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import { annotationOf, annPreResizeCapacity, volumeNameOf } from "./annotations.ts";
import type { PvControllerState } from "./controller-state.ts";

type ClaimPhase = "Pending" | "Bound" | "Lost";
type VolumePhase = "Pending" | "Available" | "Bound" | "Released" | "Failed";

/**
 * Sets the claim's phase; with a volume (Bound) also its access modes, and its capacity when it is
 * becoming Bound; without one (Pending, Lost) clears both.
 */
export async function updateClaimStatus(
  state: PvControllerState,
  claim: PersistentVolumeClaim,
  phase: ClaimPhase,
  volume: PersistentVolume | undefined,
): Promise<PersistentVolumeClaim> {
  const draft = clone(claim);
  const status = { ...(draft.status ?? {}) };
  let dirty = false;
  if (status.phase !== phase) {
    status.phase = phase;
    dirty = true;
  }
  if (volume === undefined) {
    if (status.accessModes !== undefined || status.capacity !== undefined) dirty = true;
    delete status.accessModes;
    delete status.capacity;
  } else {
    if (!jsonEqual(status.accessModes ?? null, volume.spec?.accessModes ?? null)) {
      status.accessModes = [...(volume.spec?.accessModes ?? [])];
      dirty = true;
    }
    // Only at the transition: a later difference may be intended (filesystem smaller than the device).
    if (claim.status?.phase !== phase) {
      status.capacity = capacityForClaim(volume);
      dirty = true;
    }
  }
  if (!dirty) return claim;
  draft.status = status;
  const written = await state.client.persistentVolumeClaims.updateStatus(draft);
  state.claims.storeIfNotOlder(written);
  return written;
}

function capacityForClaim(volume: PersistentVolume): Record<string, string> {
  const preResize = annotationOf(volume, annPreResizeCapacity);
  if (preResize !== undefined) return { storage: preResize };
  const capacity = volume.spec?.capacity;
  if (capacity?.storage === undefined) {
    throw new Error(`PersistentVolume "${volumeNameOf(volume)}" is without a storage capacity`);
  }
  return { ...capacity } as Record<string, string>;
}

export async function updateClaimStatusWithEvent(
  state: PvControllerState,
  claim: PersistentVolumeClaim,
  phase: ClaimPhase,
  volume: PersistentVolume | undefined,
  event: { type: EventType; reason: string; message: string },
): Promise<PersistentVolumeClaim> {
  if (claim.status?.phase === phase) return claim;
  const written = await updateClaimStatus(state, claim, phase, volume);
  state.recorder.event(written, event.type, event.reason, event.message);
  return written;
}

/** Sets the volume's phase and message (nothing when the phase is already `phase`). */
export async function updateVolumePhase(
  state: PvControllerState,
  volume: PersistentVolume,
  phase: VolumePhase,
  message: string,
): Promise<PersistentVolume> {
  if (volume.status?.phase === phase) return volume;
  const draft = clone(volume);
  const status = { ...(draft.status ?? {}), phase };
  if (message === "") delete status.message;
  else status.message = message;
  // The API server stamps this on a phase change too; setting it here keeps stores without that rule honest.
  status.lastPhaseTransitionTime = formatRfc3339(state.clock.now());
  draft.status = status;
  const written = await state.client.persistentVolumes.updateStatus(draft);
  state.volumes.storeIfNotOlder(written);
  return written;
}

export async function updateVolumePhaseWithEvent(
  state: PvControllerState,
  volume: PersistentVolume,
  phase: VolumePhase,
  event: { type: EventType; reason: string; message: string },
): Promise<PersistentVolume> {
  if (volume.status?.phase === phase) return volume;
  const written = await updateVolumePhase(state, volume, phase, event.message);
  state.recorder.event(volume, event.type, event.reason, event.message);
  return written;
}
