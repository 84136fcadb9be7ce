/**
 * syncClaim: a claim with `pv.kubernetes.io/bind-completed` is checked as bound (spec §1.7), any
 * other claim goes through syncUnboundClaim. A bound claim whose volume vanished, or whose volume
 * now belongs to another claim, is Lost, a terminal phase; the event comes only with the change.
 */
import type { PersistentVolumeClaim } from "../../api/objects.ts";
import { annBindCompleted, hasAnnotation } from "./annotations.ts";
import { bind } from "./bind.ts";
import type { PvControllerState } from "./controller-state.ts";
import { claimLostReferenceMessage, claimLostVolumeMessage, claimMisboundMessage, EventReason } from "./events.ts";
import { updateClaimStatusWithEvent } from "./status-writes.ts";
import { syncUnboundClaim } from "./sync-unbound-claim.ts";

export async function syncClaim(state: PvControllerState, claim: PersistentVolumeClaim): Promise<void> {
  if (hasAnnotation(claim, annBindCompleted)) await syncBoundClaim(state, claim);
  else await syncUnboundClaim(state, claim);
}

async function syncBoundClaim(state: PvControllerState, claim: PersistentVolumeClaim): Promise<void> {
  const volumeName = claim.spec?.volumeName ?? "";
  if (volumeName === "") {
    await markLost(state, claim, EventReason.claimLost, claimLostReferenceMessage);
    return;
  }
  const volume = state.volumes.get(volumeName);
  if (volume === undefined) {
    await markLost(state, claim, EventReason.claimLost, claimLostVolumeMessage);
    return;
  }
  const claimRef = volume.spec?.claimRef;
  // Unbound volume (or one whose update has not arrived yet) or the right UID: bind (again); a no-op when consistent.
  if (claimRef == null || claimRef.uid === claim.metadata?.uid) {
    await bind(state, volume, claim);
    return;
  }
  await markLost(state, claim, EventReason.claimMisbound, claimMisboundMessage);
}

async function markLost(
  state: PvControllerState,
  claim: PersistentVolumeClaim,
  reason: string,
  message: string,
): Promise<void> {
  await updateClaimStatusWithEvent(state, claim, "Lost", undefined, { type: "Warning", reason, message });
}
