/**
 * The kubelet's node expansion (Kubernetes' operation_generator nodeExpandVolume /
 * expandVolumeDuringMount and NodeExpander.expandOnPlugin): read the claim, decide (node-expansion.ts),
 * mark NodeResizeInProgress, ask the plugin to grow the filesystem, then MarkFSResizeFinished.
 *
 * Success: Normal `FileSystemResizeSuccessful` "MountVolume.NodeExpandVolume succeeded for volume
 * "<pv>" <node>" on the pod and on the claim. A read-only volume is not grown: Warning
 * `FileSystemResizeFailed` "MountVolume.NodeExpandVolume failed for volume "<pv>" requested read-only
 * file system" on both. Failures are returned to the caller, which names them in its own event
 * (VolumeResizeFailed online, FailedMount during a mount); a final failure also marks the claim
 * (NodeResizeError, or NodeResizeInfeasible for a size that cannot be had). FailedPrecondition
 * (the driver cannot grow it while in use) is no failure of the operation: the volume is marked so
 * that the kubelet stops asking while it stays mounted here, and the claim stays FileSystemResizePending.
 */
import type { PersistentVolumeClaim } from "../../api/objects.ts";
import { Quantity } from "../../api/quantity.ts";
import { claimCapacity, volumeCapacity } from "../../api/storage/claim-resize-status.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import {
  FailedPreconditionError,
  InfeasibleError,
  isOperationFinishedError,
  OperationNotSupportedError,
} from "../errors.ts";
import type { NodeExpandableVolumePlugin, NodeResizeOptions } from "../plugin.ts";
import {
  claimStatusAfterNodeExpansion,
  claimStatusAfterNodeExpansionFailure,
  claimStatusBeforeNodeExpansion,
  nodeExpansionTarget,
  planNodeExpansion,
} from "../util/node-expansion.ts";
import type { ClaimStatusAccess, OperationContext } from "./operation-context.ts";
import { mountSubject } from "./subjects.ts";
import type { ActualStateOfWorldMounterUpdater, VolumeToMount } from "./types.ts";
import { simpleVolumeMessage } from "./volume-messages.ts";

/** Event reasons of kubelet expansion (pkg/kubelet/events). */
export const NodeExpandEventReason = {
  fileSystemResizeSuccessful: "FileSystemResizeSuccessful",
  fileSystemResizeFailed: "FileSystemResizeFailed",
  volumeResizeFailed: "VolumeResizeFailed",
} as const;

/** What a node expansion works on; `options.newSizeBytes` is replaced by the claim's target. */
export interface NodeExpansion {
  volume: VolumeToMount;
  plugin: NodeExpandableVolumePlugin;
  asw: ActualStateOfWorldMounterUpdater;
  options: NodeResizeOptions;
}

/** Whether the filesystem is done (grown, or nothing to do), and the size it has. */
export interface NodeExpansionResult {
  done: boolean;
  sizeBytes: bigint;
}

function requireClaims(context: OperationContext): ClaimStatusAccess {
  if (context.claims === undefined) throw new Error("node expansion needs the kubelet's claim access");
  return context.claims;
}

/** The claim bound to the volume's PV, read live (a failure is retried by the caller). */
async function readClaim(context: OperationContext, volume: VolumeToMount): Promise<PersistentVolumeClaim> {
  const ref = volume.volumeSpec.persistentVolume?.spec?.claimRef;
  try {
    return await requireClaims(context).get(ref?.namespace ?? "", ref?.name ?? "");
  } catch (err) {
    throw new Error(`mountVolume.NodeExpandVolume get PVC failed : ${errorMessage(err)}`, { cause: err });
  }
}

/** A read-only volume is never grown; the pod and the claim say so. */
function refuseReadOnly(context: OperationContext, volume: VolumeToMount, claim: PersistentVolumeClaim): void {
  const message = simpleVolumeMessage(
    "MountVolume.NodeExpandVolume failed",
    mountSubject(volume),
    "requested read-only file system",
  );
  context.recorder.event(volume.pod, "Warning", NodeExpandEventReason.fileSystemResizeFailed, message);
  context.recorder.event(claim, "Warning", NodeExpandEventReason.fileSystemResizeFailed, message);
}

/** expandOnPlugin: the claim's status around the plugin's NodeExpand, and the events. */
async function expandOnPlugin(
  context: OperationContext,
  expansion: NodeExpansion,
  claim: PersistentVolumeClaim,
  newSize: Quantity,
): Promise<NodeExpansionResult> {
  const { volume, asw } = expansion;
  const claims = requireClaims(context);
  const plan = planNodeExpansion(claim, newSize, asw.checkVolumeInFailedExpansionWithFinalErrors(volume.volumeName));
  const oldSizeBytes = expansion.options.oldSizeBytes;
  if (plan.kind === "skip") return { done: false, sizeBytes: oldSizeBytes };
  let current = claim;
  if (plan.markInProgress) {
    current = await claims.writeStatus(claim, claimStatusBeforeNodeExpansion(claim));
  }
  const newSizeBytes = newSize.toBytes();
  try {
    await expansion.plugin.nodeExpand({ ...expansion.options, newSizeBytes });
  } catch (err) {
    // A driver without node expansion: nothing to do for an older resizer or a claim grown elsewhere.
    if (err instanceof OperationNotSupportedError && plan.unsupportedIsDone)
      return { done: true, sizeBytes: newSizeBytes };
    if (isOperationFinishedError(err)) {
      asw.markVolumeExpansionFailedWithFinalError(volume.volumeName);
      const infeasible = err instanceof InfeasibleError || plan.markInfeasibleOnFailure;
      const now = formatRfc3339(context.clock.now());
      current = await claims.writeStatus(
        current,
        claimStatusAfterNodeExpansionFailure(current, errorMessage(err), infeasible, now),
      );
    }
    if (err instanceof FailedPreconditionError) {
      asw.markForInUseExpansionError(volume.volumeName);
      context.logger.warn("MountVolume.NodeExpandVolume failed: the volume cannot grow while in use on this node", {
        volume: volume.volumeName,
        error: errorMessage(err),
      });
      return { done: false, sizeBytes: oldSizeBytes };
    }
    throw err;
  }
  const message = simpleVolumeMessage(
    "MountVolume.NodeExpandVolume succeeded",
    mountSubject(volume),
    volume.pod.spec?.nodeName ?? "",
  );
  context.recorder.event(volume.pod, "Normal", NodeExpandEventReason.fileSystemResizeSuccessful, message);
  context.recorder.event(current, "Normal", NodeExpandEventReason.fileSystemResizeSuccessful, message);
  if (plan.writeCapacity) {
    try {
      await claims.writeStatus(current, claimStatusAfterNodeExpansion(current, newSize.toString()));
    } catch (err) {
      throw new Error(`mountVolume.NodeExpandVolume update pvc status failed: ${errorMessage(err)}`, { cause: err });
    }
  }
  return { done: true, sizeBytes: newSizeBytes };
}

/**
 * Online expansion (nodeExpandVolume of GenerateExpandInUseVolumeFunc): only when the desired size
 * is above the size the node last recorded.
 */
export async function nodeExpandVolume(
  context: OperationContext,
  expansion: NodeExpansion,
): Promise<NodeExpansionResult> {
  const { volume, options } = expansion;
  if (options.newSizeBytes <= options.oldSizeBytes) return { done: true, sizeBytes: options.oldSizeBytes };
  const claim = await readClaim(context, volume);
  if (volume.volumeSpec.readOnly) {
    refuseReadOnly(context, volume, claim);
    return { done: true, sizeBytes: options.oldSizeBytes };
  }
  return expandOnPlugin(
    context,
    expansion,
    claim,
    nodeExpansionTarget(claim, Quantity.fromBytes(options.newSizeBytes)),
  );
}

/**
 * expandVolumeDuringMount: after SetUp, grow the filesystem when the claim's capacity is below the
 * PV's size (the claim was grown while no pod used it, or while the driver could not grow it in use).
 */
export async function expandVolumeDuringMount(
  context: OperationContext,
  expansion: NodeExpansion,
): Promise<NodeExpansionResult> {
  const { volume } = expansion;
  const pv = volume.volumeSpec.persistentVolume;
  const pvSize = pv === undefined ? undefined : volumeCapacity(pv);
  if (pvSize === undefined) return { done: true, sizeBytes: 0n };
  const claim = await readClaim(context, volume);
  // A missing or malformed capacity reads as unknown: the filesystem is grown to the PV's size.
  const capacityBytes = claimCapacity(claim)?.toBytes() ?? 0n;
  if (capacityBytes >= pvSize.toBytes()) return { done: true, sizeBytes: capacityBytes };
  if (volume.volumeSpec.readOnly) {
    refuseReadOnly(context, volume, claim);
    return { done: true, sizeBytes: capacityBytes };
  }
  const withSizes = {
    ...expansion,
    options: { ...expansion.options, oldSizeBytes: capacityBytes, newSizeBytes: pvSize.toBytes() },
  };
  return expandOnPlugin(context, withSizes, claim, nodeExpansionTarget(claim, pvSize));
}
