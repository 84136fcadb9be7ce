/**
 * The deprecated Recycle policy (recycleVolumeOperation): erase a Released volume's data and make
 * it Available for the next claim. Kubernetes ran a recycler pod (`rm -rf` on NFS or hostPath);
 * here the provisioner that handles the volume erases it. A volume still used by a running pod is
 * left alone, and a volume nothing can recycle is marked Failed.
 */
import type { PersistentVolume } from "../../api/objects.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { claimRefKeyOf, volumeNameOf } from "./annotations.ts";
import { unbindVolume } from "./bind.ts";
import { activePodKeys } from "./claim-users.ts";
import type { PvControllerState } from "./controller-state.ts";
import {
  EventReason,
  noRecyclerMessage,
  recycleFailedMessage,
  volumeRecycledMessage,
  volumeUsedByPodsMessage,
} from "./events.ts";
import { updateVolumePhaseWithEvent } from "./status-writes.ts";
import { isVolumeReleased } from "./volume-released.ts";

export async function recycleVolumeOperation(state: PvControllerState, volume: PersistentVolume): Promise<void> {
  let current: PersistentVolume;
  try {
    current = await state.client.persistentVolumes.get("", volumeNameOf(volume));
  } catch (error) {
    state.logger.info("cannot read the volume to recycle", {
      volume: volumeNameOf(volume),
      error: errorMessage(error),
    });
    return;
  }
  if (!isVolumeReleased(state, current)) return;
  if (refuseWhileInUse(state, current)) return;
  const recycler = recyclerFor(state, current);
  if (recycler === undefined) {
    await markRecycleFailed(state, current, noRecyclerMessage);
    return;
  }
  try {
    await recycler(current);
  } catch (error) {
    await markRecycleFailed(state, current, recycleFailedMessage(errorMessage(error)));
    return;
  }
  state.recorder.event(current, "Normal", EventReason.volumeRecycled, volumeRecycledMessage);
  try {
    await unbindVolume(state, current);
  } catch (error) {
    // Recycled again on the next sync; erasing twice does no harm.
    state.logger.info("could not make the recycled volume available", {
      volume: volumeNameOf(current),
      error: errorMessage(error),
    });
  }
}

/**
 * Pods that have not terminated still use the claim's data. When a claim of the same name exists
 * again it is a new claim with another volume, and this volume is free to recycle.
 */
function refuseWhileInUse(state: PvControllerState, volume: PersistentVolume): boolean {
  const claimKey = claimRefKeyOf(volume);
  const users = activePodKeys(state.pods, claimKey);
  if (users.length === 0 || state.claims.get(claimKey) !== undefined) return false;
  state.recorder.event(volume, "Normal", EventReason.volumeFailedRecycle, volumeUsedByPodsMessage(users));
  return true;
}

function recyclerFor(
  state: PvControllerState,
  volume: PersistentVolume,
): ((volume: PersistentVolume) => Promise<void>) | undefined {
  const provisioner = state.provisioners.forVolume(volume);
  const recycle = provisioner?.recycle;
  return recycle === undefined ? undefined : (target) => recycle.call(provisioner, target);
}

async function markRecycleFailed(state: PvControllerState, volume: PersistentVolume, message: string): Promise<void> {
  try {
    await updateVolumePhaseWithEvent(state, volume, "Failed", {
      type: "Warning",
      reason: EventReason.volumeFailedRecycle,
      message,
    });
  } catch (error) {
    state.logger.info("could not mark the volume Failed; the next sync retries", {
      volume: volumeNameOf(volume),
      error: errorMessage(error),
    });
  }
}
