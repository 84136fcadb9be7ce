/**
 * The kubelet's side of volume expansion (Kubernetes' NodeExpander, pkg/volume/util/
 * operationexecutor/node_expander.go, and MarkFSResizeFinished in resize_util.go): whether a mounted
 * claim's filesystem must grow on this node, and the claim's status once it did or could not.
 *
 * The resizer grows the PV first (spec.capacity) and leaves `NodeResizePending`; the filesystem
 * grows when the kubelet sees the PV larger than the claim's status.capacity. A claim whose resize
 * status says the node part failed as infeasible is not retried until the user lowers the request.
 */
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import {
  claimCapacity,
  claimResizeStatus,
  expansionFailedCondition,
  expansionFinished,
  expansionInfeasible,
  nodeResizeInProgress,
  volumeCapacity,
} from "../../api/storage/claim-resize-status.ts";

type ClaimStatus = NonNullable<PersistentVolumeClaim["status"]>;

/** What the kubelet does with a mounted claim: nothing, or NodeExpandVolume to `requiredBytes`. */
export type NodeExpansionPlan = { kind: "none" } | { kind: "expand"; requiredBytes: bigint; newSize: string };

/**
 * runPreCheck: expand while the PV is larger than the claim's capacity and the resize status is
 * unset (an old resizer), NodeResizePending or NodeResizeInProgress (a kubelet restarted midway).
 */
export function planNodeExpansion(volume: PersistentVolume, claim: PersistentVolumeClaim): NodeExpansionPlan {
  const volumeSize = volumeCapacity(volume);
  const sizeText = volume.spec?.capacity?.storage;
  if (volumeSize === undefined || sizeText === undefined) return { kind: "none" };
  const capacity = claimCapacity(claim);
  if (capacity !== undefined && capacity.compare(volumeSize) >= 0) return { kind: "none" };
  const status = claimResizeStatus(claim);
  if (status !== undefined && status !== "NodeResizePending" && status !== "NodeResizeInProgress") {
    return { kind: "none" };
  }
  return { kind: "expand", requiredBytes: volumeSize.toBytes(), newSize: sizeText };
}

/** Written before NodeExpandVolume when the resizer tracks the status (NodeResizeInProgress). */
export function claimStatusBeforeNodeExpansion(claim: PersistentVolumeClaim): ClaimStatus | undefined {
  return claimResizeStatus(claim) === undefined ? undefined : nodeResizeInProgress(claim);
}

/** MarkFSResizeFinished: status.capacity = the PV's size, resize conditions and status cleared. */
export function claimStatusAfterNodeExpansion(claim: PersistentVolumeClaim, newSize: string): ClaimStatus {
  return expansionFinished(claim, newSize);
}

/**
 * A failed NodeExpandVolume: a final error that says the size cannot be had (gRPC OutOfRange, as
 * the kubelet's IsInfeasibleError) makes the claim NodeResizeInfeasible; any other error only adds
 * the NodeResizeError condition and leaves NodeResizeInProgress to be retried.
 */
export function claimStatusAfterNodeExpansionFailure(
  claim: PersistentVolumeClaim,
  error: string,
  infeasible: boolean,
  nowRfc3339: string,
): ClaimStatus {
  return infeasible
    ? expansionInfeasible(claim, "Node", error, nowRfc3339)
    : expansionFailedCondition(claim, "Node", error, nowRfc3339);
}
