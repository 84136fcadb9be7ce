/**
 * syncUnboundClaim (spec §1.4): a claim the controller has not finished binding. Without
 * spec.volumeName it gets the best matching volume, or the default class, or a provisioned volume,
 * or waits for its first consumer; with spec.volumeName it binds to exactly that volume when it fits.
 * Every path that does not bind leaves the claim Pending and is tried again on the next sync.
 */
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { claimClassName, isVolumeBoundToClaim } from "../../api/storage/pv-helpers.ts";
import { volumeUnsuitableReason } from "../../api/storage/volume-matching.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { goQuote } from "../../runtime/go-quote.ts";
import { annBoundByController, claimKeyOf, hasAnnotation } from "./annotations.ts";
import { bind } from "./bind.ts";
import { unscheduledPodNames } from "./claim-users.ts";
import type { PvControllerState } from "./controller-state.ts";
import {
  cannotBindRequestedVolumeMessage,
  EventReason,
  noVolumesAndNoClassMessage,
  volumeAlreadyBoundMessage,
  waitForFirstConsumerMessage,
  waitForPodsScheduledMessage,
} from "./events.ts";
import { provisionClaim } from "./provision.ts";
import { updateClaimStatus } from "./status-writes.ts";
import { assignDefaultStorageClass, isDelayBindingMode, isDelayBindingProvisioning } from "./storage-classes.ts";

export async function syncUnboundClaim(state: PvControllerState, claim: PersistentVolumeClaim): Promise<void> {
  if (claim.spec?.volumeName) await syncClaimForRequestedVolume(state, claim, claim.spec.volumeName);
  else await syncClaimForAnyVolume(state, claim);
}

async function syncClaimForAnyVolume(state: PvControllerState, claim: PersistentVolumeClaim): Promise<void> {
  const delayBinding = isDelayBindingMode(claim, state.classLister);
  let volume: PersistentVolume | undefined;
  try {
    volume = state.volumes.findByClaim(claim, delayBinding);
  } catch (error) {
    throw new Error(`error finding PV for claim ${goQuote(claimKeyOf(claim))}: ${errorMessage(error)}`);
  }
  if (volume !== undefined) {
    await bind(state, volume, claim);
    return;
  }
  // The claim changes; its next sync goes on with the class filled in.
  if (await assignDefaultStorageClass(state, claim)) return;
  if (delayBinding && !isDelayBindingProvisioning(claim)) {
    emitWaitingForConsumer(state, claim);
  } else if (claimClassName(claim) !== "") {
    // Provisioning runs in the background and writes the claim itself; leave its status alone.
    provisionClaim(state, claim);
    return;
  } else {
    state.recorder.event(claim, "Normal", EventReason.failedBinding, noVolumesAndNoClassMessage);
  }
  await updateClaimStatus(state, claim, "Pending", undefined);
}

/** WaitForFirstConsumer, or WaitForPodScheduled naming the pods that wait for a node. */
function emitWaitingForConsumer(state: PvControllerState, claim: PersistentVolumeClaim): void {
  const podNames = unscheduledPodNames(state.pods, claimKeyOf(claim));
  if (podNames.length === 0) {
    state.recorder.event(claim, "Normal", EventReason.waitForFirstConsumer, waitForFirstConsumerMessage);
  } else {
    state.recorder.event(claim, "Normal", EventReason.waitForPodScheduled, waitForPodsScheduledMessage(podNames));
  }
}

/** The user named the volume (a claim pre-bound to a PV). */
async function syncClaimForRequestedVolume(
  state: PvControllerState,
  claim: PersistentVolumeClaim,
  volumeName: string,
): Promise<void> {
  const volume = state.volumes.get(volumeName);
  if (volume === undefined) {
    // It may not exist yet; try again on the next sync.
    await updateClaimStatus(state, claim, "Pending", undefined);
    return;
  }
  if (volume.spec?.claimRef == null) {
    await bindIfSuitable(state, volume, claim);
    return;
  }
  if (isVolumeBoundToClaim(volume, claim)) {
    await bind(state, volume, claim);
    return;
  }
  state.recorder.event(claim, "Warning", EventReason.failedBinding, volumeAlreadyBoundMessage(volumeName));
  if (hasAnnotation(claim, annBoundByController)) {
    // Someone removed bind-completed from a claim the controller bound: an inconsistency to report.
    throw new Error(
      `invalid binding of claim ${goQuote(claimKeyOf(claim))} to volume ${goQuote(volumeName)}: ` +
        `volume already claimed by ${goQuote(`${volume.spec.claimRef.namespace ?? ""}/${volume.spec.claimRef.name ?? ""}`)}`,
    );
  }
  await updateClaimStatus(state, claim, "Pending", undefined);
}

async function bindIfSuitable(
  state: PvControllerState,
  volume: PersistentVolume,
  claim: PersistentVolumeClaim,
): Promise<void> {
  const reason = volumeUnsuitableReason(volume, claim);
  if (reason === undefined) {
    await bind(state, volume, claim);
    return;
  }
  const message = cannotBindRequestedVolumeMessage(volume.metadata?.name ?? "", reason);
  state.recorder.event(claim, "Warning", EventReason.volumeMismatch, message);
  await updateClaimStatus(state, claim, "Pending", undefined);
}
