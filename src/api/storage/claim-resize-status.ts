/**
 * A claim's expansion state in its status, as Kubernetes' resize utilities write it (pkg/volume/util
 * resize_util.go, external-resizer resize_status.go): `allocatedResources.storage` (the size being
 * expanded to), `allocatedResourceStatuses.storage` (where the expansion is), the conditions
 * Resizing, FileSystemResizePending, ControllerResizeError and NodeResizeError, and at the end
 * `capacity.storage`. Each function returns a new status; the caller writes it (the resizer, kubelet).
 */
import type { PersistentVolume, PersistentVolumeClaim } from "../objects.ts";
import { parseQuantity, type Quantity } from "../quantity.ts";

type ClaimStatus = NonNullable<PersistentVolumeClaim["status"]>;
type ClaimCondition = NonNullable<ClaimStatus["conditions"]>[number];

export type ClaimResizeStatus =
  | "ControllerResizeInProgress"
  | "ControllerResizeInfeasible"
  | "NodeResizePending"
  | "NodeResizeInProgress"
  | "NodeResizeInfeasible";

const storage = "storage";

/** Kubernetes' message on the FileSystemResizePending condition. */
export const fileSystemResizePendingMessage =
  "Waiting for user to (re-)start a pod to finish file system resize of volume on node.";

const resizeConditionTypes: ReadonlySet<string> = new Set([
  "Resizing",
  "FileSystemResizePending",
  "ControllerResizeError",
  "NodeResizeError",
]);

function quantityOrUndefined(text: string | undefined): Quantity | undefined {
  if (text === undefined) return undefined;
  try {
    return parseQuantity(text);
  } catch {
    // A malformed stored quantity is no size: validation keeps them out of new writes.
    return undefined;
  }
}

export function claimRequestSize(claim: PersistentVolumeClaim): Quantity | undefined {
  return quantityOrUndefined(claim.spec?.resources?.requests?.[storage]);
}

export function claimCapacity(claim: PersistentVolumeClaim): Quantity | undefined {
  return quantityOrUndefined(claim.status?.capacity?.[storage]);
}

export function claimAllocatedSize(claim: PersistentVolumeClaim): Quantity | undefined {
  return quantityOrUndefined(claim.status?.allocatedResources?.[storage]);
}

export function claimResizeStatus(claim: PersistentVolumeClaim): ClaimResizeStatus | undefined {
  return claim.status?.allocatedResourceStatuses?.[storage] as ClaimResizeStatus | undefined;
}

export function volumeCapacity(volume: PersistentVolume): Quantity | undefined {
  return quantityOrUndefined(volume.spec?.capacity?.[storage]);
}

export function hasCondition(claim: PersistentVolumeClaim, type: string): boolean {
  return (claim.status?.conditions ?? []).some((condition) => condition.type === type && condition.status === "True");
}

/**
 * MergeResizeConditionOnPVC: conditions that are not about resizing stay; a resize condition in
 * `next` replaces one of its type when the status differs (else the old one, with its time, stays);
 * other resize conditions stay only with `keepOld`.
 */
function mergeResizeConditions(status: ClaimStatus, next: ClaimCondition[], keepOld: boolean): ClaimCondition[] {
  const pending = new Map(next.map((condition) => [condition.type, condition]));
  const merged: ClaimCondition[] = [];
  for (const condition of status.conditions ?? []) {
    if (!resizeConditionTypes.has(condition.type)) {
      merged.push(condition);
      continue;
    }
    const replacement = pending.get(condition.type);
    if (replacement !== undefined) {
      merged.push(replacement.status !== condition.status ? replacement : condition);
      pending.delete(condition.type);
    } else if (keepOld) {
      merged.push(condition);
    }
  }
  return [...merged, ...pending.values()];
}

function withResizeStatus(status: ClaimStatus, resizeStatus: ClaimResizeStatus | undefined): ClaimStatus {
  const statuses = { ...(status.allocatedResourceStatuses ?? {}) };
  if (resizeStatus === undefined) delete statuses[storage];
  else statuses[storage] = resizeStatus;
  const next = { ...status };
  if (Object.keys(statuses).length === 0) delete next.allocatedResourceStatuses;
  else next.allocatedResourceStatuses = statuses;
  return next;
}

function condition(type: string, nowRfc3339: string, message?: string): ClaimCondition {
  return {
    type,
    status: "True",
    lastTransitionTime: nowRfc3339,
    ...(message === undefined ? {} : { message }),
  };
}

function statusOf(claim: PersistentVolumeClaim): ClaimStatus {
  return { ...(claim.status ?? {}) };
}

/** The resizer starts expanding to `newSize`: Resizing, ControllerResizeInProgress, allocatedResources. */
export function controllerResizeInProgress(claim: PersistentVolumeClaim, newSize: string, now: string): ClaimStatus {
  const status = statusOf(claim);
  status.conditions = mergeResizeConditions(status, [condition("Resizing", now)], false);
  status.allocatedResources = { ...(status.allocatedResources ?? {}), [storage]: newSize };
  return withResizeStatus(status, "ControllerResizeInProgress");
}

/** The volume grew; the filesystem waits for kubelet: FileSystemResizePending, NodeResizePending. */
export function nodeExpansionPending(claim: PersistentVolumeClaim, now: string): ClaimStatus {
  const status = statusOf(claim);
  status.conditions = mergeResizeConditions(
    status,
    [condition("FileSystemResizePending", now, fileSystemResizePendingMessage)],
    false,
  );
  return withResizeStatus(status, "NodeResizePending");
}

/** Expansion done (by the resizer, or by kubelet after the filesystem grew): the claim shows `newSize`. */
export function expansionFinished(claim: PersistentVolumeClaim, newSize: string): ClaimStatus {
  const status = statusOf(claim);
  status.capacity = { ...(status.capacity ?? {}), [storage]: newSize };
  status.conditions = mergeResizeConditions(status, [], false);
  if (status.conditions.length === 0) delete status.conditions;
  return withResizeStatus(status, undefined);
}

/** A final error that says the size cannot be given: Infeasible, with the error condition. */
export function expansionInfeasible(
  claim: PersistentVolumeClaim,
  side: "Controller" | "Node",
  error: string,
  now: string,
): ClaimStatus {
  const status = expansionFailedCondition(claim, side, error, now);
  return withResizeStatus(status, side === "Controller" ? "ControllerResizeInfeasible" : "NodeResizeInfeasible");
}

/** Any other final error: the error condition, the resize status left as it was. */
export function expansionFailedCondition(
  claim: PersistentVolumeClaim,
  side: "Controller" | "Node",
  error: string,
  now: string,
): ClaimStatus {
  const status = statusOf(claim);
  const type = side === "Controller" ? "ControllerResizeError" : "NodeResizeError";
  status.conditions = mergeResizeConditions(status, [condition(type, now, `failed to expand pvc with ${error}`)], true);
  return status;
}

/** kubelet starts NodeExpandVolume. */
export function nodeResizeInProgress(claim: PersistentVolumeClaim): ClaimStatus {
  return withResizeStatus(statusOf(claim), "NodeResizeInProgress");
}
