/**
 * The kubelet's decisions about a claim's node expansion (Kubernetes' NodeExpander.runPreCheck,
 * node_expander.go, and the recovery check of operation_generator.go), and the claim statuses it
 * writes (MarkNodeExpansionInProgress, MarkFSResizeFinished, MarkNodeExpansionInfeasible,
 * MarkNodeExpansionFailedCondition of resize_util.go).
 *
 * With a resizer that tracks `allocatedResourceStatuses` (RecoverVolumeExpansionFailure) the node
 * grows the filesystem to `allocatedResources.storage` while the status is NodeResizePending or
 * NodeResizeInProgress (a kubelet restarted midway); a claim whose capacity already shows the size
 * and has no status was grown elsewhere (a ReadWriteMany volume on another node): the node grows
 * its own filesystem and writes nothing. An older resizer sets neither field: the node grows to
 * the PV's size and writes the capacity after.
 */
import type { PersistentVolumeClaim } from "../../api/objects.ts";
import type { Quantity } from "../../api/quantity.ts";
import {
  claimAllocatedSize,
  claimCapacity,
  claimRequestSize,
  claimResizeStatus,
  expansionFailedCondition,
  expansionFinished,
  expansionInfeasible,
  nodeResizeInProgress,
} from "../../api/storage/claim-resize-status.ts";

type ClaimStatus = NonNullable<PersistentVolumeClaim["status"]>;

/** What the kubelet does for a claim whose filesystem may need to grow to `newSize`. */
export type NodeExpansionPlan =
  /** Not allowed now (the resizer has not finished, or the size is infeasible): nothing to do. */
  | { kind: "skip" }
  /**
   * Grow; `markInProgress`: write NodeResizeInProgress first and the capacity after;
   * `markInfeasibleOnFailure`: the request changed since a final failure, so a new failure is infeasible;
   * `unsupportedIsDone`: a driver without node expansion has nothing to do (an older resizer, or a
   * claim already grown elsewhere).
   */
  | {
      kind: "expand";
      markInProgress: boolean;
      writeCapacity: boolean;
      markInfeasibleOnFailure: boolean;
      unsupportedIsDone: boolean;
    };

/** checkForRecoveryFromExpansion: the resizer records allocatedResources or their status. */
export function resizerTracksAllocation(claim: PersistentVolumeClaim): boolean {
  return claimResizeStatus(claim) !== undefined || claim.status?.allocatedResources !== undefined;
}

/** The size to grow to: allocatedResources.storage for a tracking resizer, else the PV's size. */
export function nodeExpansionTarget(claim: PersistentVolumeClaim, volumeSize: Quantity): Quantity {
  if (!resizerTracksAllocation(claim)) return volumeSize;
  return claimAllocatedSize(claim) ?? volumeSize;
}

/** runPreCheck, for a claim whose filesystem should grow to `newSize`. */
export function planNodeExpansion(
  claim: PersistentVolumeClaim,
  newSize: Quantity,
  failedWithFinalErrorBefore: boolean,
): NodeExpansionPlan {
  if (!resizerTracksAllocation(claim)) {
    const capacity = claimCapacity(claim);
    const grown = capacity !== undefined && capacity.compare(newSize) >= 0;
    return {
      kind: "expand",
      markInProgress: false,
      writeCapacity: !grown,
      markInfeasibleOnFailure: false,
      unsupportedIsDone: true,
    };
  }
  const request = claimRequestSize(claim);
  const markInfeasibleOnFailure =
    failedWithFinalErrorBefore && (request === undefined || request.compare(newSize) !== 0);
  const status = claimResizeStatus(claim);
  const capacity = claimCapacity(claim);
  if (status === undefined && capacity !== undefined && capacity.compare(newSize) >= 0) {
    return {
      kind: "expand",
      markInProgress: false,
      writeCapacity: false,
      markInfeasibleOnFailure,
      unsupportedIsDone: true,
    };
  }
  if (status === "NodeResizePending" || status === "NodeResizeInProgress") {
    return {
      kind: "expand",
      markInProgress: true,
      writeCapacity: true,
      markInfeasibleOnFailure,
      unsupportedIsDone: false,
    };
  }
  return { kind: "skip" };
}

/** MarkNodeExpansionInProgress. */
export function claimStatusBeforeNodeExpansion(claim: PersistentVolumeClaim): ClaimStatus {
  return nodeResizeInProgress(claim);
}

/** MarkFSResizeFinished: status.capacity = the new size, resize conditions and status cleared. */
export function claimStatusAfterNodeExpansion(claim: PersistentVolumeClaim, newSize: string): ClaimStatus {
  return expansionFinished(claim, newSize);
}

/**
 * A final NodeExpandVolume failure: an infeasible size makes the claim NodeResizeInfeasible (the
 * user may lower the request); any other adds the NodeResizeError condition and keeps the status.
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
