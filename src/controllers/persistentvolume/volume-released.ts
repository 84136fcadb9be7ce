/**
 * Whether a bound volume has lost its claim and is due for its reclaim policy (isVolumeReleased),
 * judged from the controller's claim cache.
 */
import type { PersistentVolume } from "../../api/objects.ts";
import { claimRefKeyOf, volumeNameOf } from "./annotations.ts";
import type { PvControllerState } from "./controller-state.ts";

/**
 * A volume needs reclaiming when it is bound (claimRef with a UID) and its claim is gone, was
 * replaced by another claim of the same name, or is bound to a different volume.
 */
export function isVolumeReleased(state: PvControllerState, volume: PersistentVolume): boolean {
  const claimRef = volume.spec?.claimRef;
  if (claimRef == null || !claimRef.uid) return false;
  const claim = state.claims.get(claimRefKeyOf(volume));
  if (claim === undefined || claim.metadata?.uid !== claimRef.uid) return true;
  const boundTo = claim.spec?.volumeName ?? "";
  return boundTo !== "" && boundTo !== volumeNameOf(volume);
}
