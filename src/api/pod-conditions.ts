/**
 * Kubernetes' `podutil.UpdatePodCondition`, which every component that writes a pod condition uses
 * (the binding subresource, the scheduler, the node lifecycle controller, pod GC): the transition
 * time moves only when the status changes, and "changed" tells the caller whether a write is needed
 * at all, so a controller repeating the same verdict costs no API call.
 */
import type { PodCondition, PodStatus } from "kubernetes-types/core/v1.js";
import { formatRfc3339 } from "../runtime/clock.ts";

export type { PodCondition };

interface ConditionUpdate {
  /** The status with the condition set (a new object; the input is not changed). */
  status: PodStatus;
  changed: boolean;
}

/** Sets `condition` (without lastTransitionTime, which this decides) in `status` at `nowMs`. */
export function updatePodCondition(
  status: PodStatus | undefined,
  condition: Omit<PodCondition, "lastTransitionTime">,
  nowMs: number,
): ConditionUpdate {
  const conditions = [...(status?.conditions ?? [])];
  const changed = setPodCondition(conditions, condition, nowMs);
  return { status: { ...status, conditions }, changed };
}

/**
 * updatePodCondition on a conditions array the caller owns, changed in place; returns whether the
 * condition changed. For a writer setting several conditions at once (the kubelet sets five per
 * status), which would otherwise copy the status and its conditions once per condition.
 */
export function setPodCondition(
  conditions: PodCondition[],
  condition: Omit<PodCondition, "lastTransitionTime">,
  nowMs: number,
): boolean {
  const index = indexOfType(conditions, condition.type);
  const old = index >= 0 ? conditions[index] : undefined;
  const kept = old !== undefined && old.status === condition.status ? old.lastTransitionTime : undefined;
  // The verdict repeated (most calls): the condition already there is the one this would build,
  // field for field and in the same order, so it stays, shared, and nothing is copied.
  if (kept && isConditionAt(old as PodCondition, condition, kept)) return false;
  const lastTransitionTime = kept || formatRfc3339(nowMs);
  const next: PodCondition = { ...condition, lastTransitionTime };
  if (index >= 0) conditions[index] = next;
  else conditions.push(next);
  return (
    old === undefined ||
    old.status !== next.status ||
    old.reason !== next.reason ||
    old.message !== next.message ||
    old.lastProbeTime !== next.lastProbeTime ||
    old.lastTransitionTime !== next.lastTransitionTime
  );
}

function indexOfType(conditions: readonly PodCondition[], type: string): number {
  for (let index = 0; index < conditions.length; index++) if (conditions[index]?.type === type) return index;
  return -1;
}

/** True when `existing` is exactly `{ ...condition, lastTransitionTime }`: the same fields, values and order. */
function isConditionAt(
  existing: PodCondition,
  condition: Omit<PodCondition, "lastTransitionTime">,
  lastTransitionTime: string,
): boolean {
  const fields = Object.keys(condition) as (keyof typeof condition)[];
  const existingFields = Object.keys(existing);
  if (existingFields.length !== fields.length + 1 || existingFields[fields.length] !== "lastTransitionTime") {
    return false;
  }
  if (existing.lastTransitionTime !== lastTransitionTime) return false;
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index] as keyof typeof condition;
    const value = condition[field];
    if (existingFields[index] !== field || value === undefined || existing[field] !== value) return false;
  }
  return true;
}

/** The condition of `type`, or undefined. */
export function podCondition(status: PodStatus | undefined, type: string): PodCondition | undefined {
  return status?.conditions?.find((condition) => condition.type === type);
}
