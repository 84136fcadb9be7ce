/**
 * NodeExpandVolume for a mounted claim (Kubernetes' operation_generator nodeExpandVolume and
 * NodeExpander): read the claim, decide from the PV's size and the claim's resize status, mark
 * NodeResizeInProgress, ask the plugin to grow the filesystem, then MarkFSResizeFinished. The event
 * goes to the pod: `FileSystemResizeSuccessful` "MountVolume.NodeExpandVolume succeeded for volume
 * "<pv>" <node>", or `VolumeResizeFailed` "MountVolume.NodeExpandVolume failed for volume "<pv>" : <err>".
 *
 * A final driver error that says the size cannot be had (InvalidArgument, OutOfRange, NotFound, as
 * the resizer classifies them) makes the claim NodeResizeInfeasible; any other failure leaves it to
 * be retried, with the NodeResizeError condition saying why.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { CsiError, isFinalCsiError } from "../../csi/grpc/errors.ts";
import { type Clock, formatRfc3339 } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import {
  claimStatusAfterNodeExpansion,
  claimStatusAfterNodeExpansionFailure,
  claimStatusBeforeNodeExpansion,
  planNodeExpansion,
} from "../util/node-expansion.ts";
import type { VolumeEventRecorder } from "./operation-context.ts";
import { simpleVolumeMessage, type VolumeMessageSubject, VolumeOperationError } from "./volume-messages.ts";

type ClaimStatus = NonNullable<PersistentVolumeClaim["status"]>;

/** Event reasons of kubelet expansion (pkg/kubelet/events). */
export const NodeExpandEventReason = {
  fileSystemResizeSuccessful: "FileSystemResizeSuccessful",
  volumeResizeFailed: "VolumeResizeFailed",
} as const;

const infeasibleCodes: ReadonlySet<string> = new Set(["InvalidArgument", "OutOfRange", "NotFound"]);

/** Reads the claim live and writes its status (the kubelet's API client satisfies it). */
export interface ClaimStatusAccess {
  get(namespace: string, name: string): Promise<PersistentVolumeClaim>;
  writeStatus(claim: PersistentVolumeClaim, status: ClaimStatus): Promise<void>;
}

/** The plugin's side: grow the filesystem of the mounted volume to `requiredBytes`. */
export interface NodeVolumeExpander {
  nodeExpand(requiredBytes: bigint): Promise<void>;
}

export interface NodeExpandRequest {
  pod: Pod;
  volume: PersistentVolume;
  nodeName: string;
  subject: VolumeMessageSubject;
  claims: ClaimStatusAccess;
  expander: NodeVolumeExpander;
  recorder: VolumeEventRecorder;
  clock: Clock;
}

/** Whether the filesystem grew (false: nothing to do). Throws VolumeOperationError after its event. */
export async function nodeExpandVolume(request: NodeExpandRequest): Promise<boolean> {
  const { volume, claims, subject } = request;
  const claimRef = volume.spec?.claimRef;
  if (claimRef?.name === undefined) return false;
  const claim = await claims.get(claimRef.namespace ?? "", claimRef.name);
  const plan = planNodeExpansion(volume, claim);
  if (plan.kind === "none") return false;
  const inProgress = claimStatusBeforeNodeExpansion(claim);
  let current = claim;
  if (inProgress !== undefined) {
    await claims.writeStatus(claim, inProgress);
    current = { ...claim, status: inProgress };
  }
  try {
    await request.expander.nodeExpand(plan.requiredBytes);
  } catch (err) {
    await recordFailure(request, current, err);
    throw new VolumeOperationError("MountVolume.NodeExpandVolume failed", subject, err);
  }
  await claims.writeStatus(current, claimStatusAfterNodeExpansion(current, plan.newSize));
  request.recorder.event(
    request.pod,
    "Normal",
    NodeExpandEventReason.fileSystemResizeSuccessful,
    simpleVolumeMessage("MountVolume.NodeExpandVolume succeeded", subject, request.nodeName),
  );
  return true;
}

async function recordFailure(request: NodeExpandRequest, claim: PersistentVolumeClaim, err: unknown): Promise<void> {
  const event = new VolumeOperationError("MountVolume.NodeExpandVolume failed", request.subject, err);
  request.recorder.event(request.pod, "Warning", NodeExpandEventReason.volumeResizeFailed, event.eventMessage);
  const infeasible = isFinalCsiError(err) && err instanceof CsiError && infeasibleCodes.has(err.code);
  const status = claimStatusAfterNodeExpansionFailure(
    claim,
    errorMessage(err),
    infeasible,
    formatRfc3339(request.clock.now()),
  );
  await request.claims.writeStatus(claim, status);
}
