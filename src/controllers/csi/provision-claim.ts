/**
 * The provisioning library's provisionClaimOperation for one claim this driver should provision
 * (should-provision.ts): skip when its PV exists, find the class and the selected node, record
 * `Provisioning`, let the driver create the volume (create-volume.ts), then save the PV with the
 * claimRef so the PV controller binds it, and record `ProvisioningSucceeded`.
 *
 * A failure records `ProvisioningFailed` and, when the selected node cannot host the volume,
 * removes `volume.kubernetes.io/selected-node` so the scheduler picks again. A PV that cannot be
 * saved is kept and saved on the next attempt without asking the driver again.
 */

import { isAlreadyExists } from "../../api/errors.ts";
import type { Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from "../../api/objects.ts";
import { objectKey } from "../../api/objects.ts";
import { claimClassName } from "../../api/storage/pv-helpers.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { annSelectedNode, provisionedVolumeNamePrefix } from "./constants.ts";
import { provisionWithDriver } from "./create-volume.ts";
import {
  nodeNotFoundMessage,
  ProvisionerEventReason,
  provisioningFailedMessage,
  provisioningMessage,
  provisioningSucceededMessage,
  storageClassNotFoundMessage,
} from "./provisioner-events.ts";
import type { ProvisionerState } from "./provisioner-state.ts";
import { ProvisioningError, type ProvisioningState } from "./provisioning-state.ts";

/**
 * How an attempt ended. `error` set: retry with backoff. `stop`: provisioning gave up on purpose
 * (the claim went back to the scheduler) and is not retried until the claim changes.
 */
interface ProvisionOutcome {
  state: ProvisioningState;
  error?: Error;
  stop?: boolean;
}

const finishedOk: ProvisionOutcome = { state: "Finished" };

/** `pvc-<claim uid>`: the same name on every attempt, which CreateVolume's idempotency relies on. */
function provisionedVolumeName(claim: PersistentVolumeClaim): string {
  return `${provisionedVolumeNamePrefix}-${claim.metadata?.uid ?? ""}`;
}

export async function provisionClaimOperation(
  state: ProvisionerState,
  claim: PersistentVolumeClaim,
): Promise<ProvisionOutcome> {
  const pvName = provisionedVolumeName(claim);
  if (state.volumes.get("", pvName) !== undefined) {
    state.logger.debug("persistentvolume already exists, skipping", { pv: pvName });
    return finishedOk;
  }
  const unsaved = state.unsavedVolumes.get(claim.metadata?.uid ?? "");
  if (unsaved !== undefined) return saveVolume(state, claim, unsaved);
  const className = claimClassName(claim);
  const storageClass = state.classes.get("", className);
  if (storageClass === undefined) {
    const message = storageClassNotFoundMessage(className);
    state.recorder.event(claim, "Warning", ProvisionerEventReason.provisioningFailed, message);
    return { state: "Finished", error: new Error(message) };
  }
  // The class changed since shouldProvision, or the claim names another provisioner.
  if (storageClass.provisioner !== state.driverName) return finishedOk;
  const selected = selectedNodeOf(state, claim);
  if (selected.kind === "missing") return handleFailure(state, claim, "Reschedule", new Error(selected.error));
  state.recorder.event(claim, "Normal", ProvisionerEventReason.provisioning, provisioningMessage(objectKey(claim)));
  return provisionAndSave(state, claim, storageClass, pvName, selected.node);
}

async function provisionAndSave(
  state: ProvisionerState,
  claim: PersistentVolumeClaim,
  storageClass: StorageClass,
  pvName: string,
  selectedNode: Node | undefined,
): Promise<ProvisionOutcome> {
  let volume: PersistentVolume;
  try {
    volume = await provisionWithDriver(state, { pvName, claim, storageClass, selectedNode });
  } catch (error) {
    const provisioningState = error instanceof ProvisioningError ? error.state : "InBackground";
    const message = provisioningFailedMessage(storageClass.metadata?.name ?? "", errorMessage(error));
    return handleFailure(state, claim, provisioningState, new Error(message));
  }
  return saveVolume(state, claim, volume);
}

type SelectedNode = { kind: "found"; node: Node | undefined } | { kind: "missing"; error: string };

function selectedNodeOf(state: ProvisionerState, claim: PersistentVolumeClaim): SelectedNode {
  const nodeName = claim.metadata?.annotations?.[annSelectedNode];
  if (nodeName === undefined) return { kind: "found", node: undefined };
  const node = state.nodes.get("", nodeName);
  return node === undefined ? { kind: "missing", error: nodeNotFoundMessage(nodeName) } : { kind: "found", node };
}

/** provisionVolumeErrorHandling: the event, then rescheduling when asked for and possible. */
async function handleFailure(
  state: ProvisionerState,
  claim: PersistentVolumeClaim,
  provisioningState: ProvisioningState,
  error: Error,
): Promise<ProvisionOutcome> {
  state.recorder.event(claim, "Warning", ProvisionerEventReason.provisioningFailed, error.message);
  if (provisioningState !== "Reschedule") return { state: provisioningState, error };
  // Without a selected node there is nothing to hand back to the scheduler: an ordinary failure.
  if (claim.metadata?.annotations?.[annSelectedNode] === undefined) return { state: "Finished", error };
  try {
    await removeSelectedNode(state, claim);
  } catch (removeError) {
    state.logger.info("volume rescheduling failed", { claim: objectKey(claim), error: errorMessage(removeError) });
    return { state: "Finished", error };
  }
  state.logger.info("volume rescheduled", { claim: objectKey(claim), error: error.message });
  return { state: "Finished", error, stop: true };
}

async function removeSelectedNode(state: ProvisionerState, claim: PersistentVolumeClaim): Promise<void> {
  await state.client.persistentVolumeClaims.mutate(
    claim.metadata?.namespace ?? "",
    claim.metadata?.name ?? "",
    (draft) => {
      if (draft.metadata?.uid !== claim.metadata?.uid) return;
      const annotations = { ...draft.metadata?.annotations };
      delete annotations[annSelectedNode];
      draft.metadata = { ...draft.metadata, annotations };
    },
  );
}

/**
 * Creates the PV object; one that already exists counts as saved. A failure keeps the PV for the
 * next attempt and marks the claim in progress, so the volume is not leaked if the claim goes.
 */
async function saveVolume(
  state: ProvisionerState,
  claim: PersistentVolumeClaim,
  volume: PersistentVolume,
): Promise<ProvisionOutcome> {
  const claimUid = claim.metadata?.uid ?? "";
  const pvName = volume.metadata?.name ?? "";
  try {
    await state.client.persistentVolumes.create(structuredClone(volume));
  } catch (error) {
    if (!isAlreadyExists(error)) {
      state.unsavedVolumes.set(claimUid, volume);
      state.logger.error("failed to save the provisioned volume; will retry", {
        pv: pvName,
        error: errorMessage(error),
      });
      return { state: "InBackground", error: new Error(`failed to save volume ${pvName}: ${errorMessage(error)}`) };
    }
  }
  state.unsavedVolumes.delete(claimUid);
  state.recorder.event(
    claim,
    "Normal",
    ProvisionerEventReason.provisioningSucceeded,
    provisioningSucceededMessage(pvName),
  );
  return finishedOk;
}
