/**
 * Sums and orderings over a Deployment's ReplicaSets (deploymentutil): wanted pods are
 * `spec.replicas`, actual ones `status.replicas`, and so on. The revision of a ReplicaSet is its
 * `deployment.kubernetes.io/revision` annotation (0 when absent).
 */
import type { ReplicaSet } from "../../api/objects.ts";
import { parseRfc3339 } from "../../runtime/clock.ts";
import { revisionAnnotation } from "./constants.ts";

export function specReplicas(set: ReplicaSet): number {
  return set.spec?.replicas ?? 0;
}

/** Pods the sets want (GetReplicaCountForReplicaSets). */
export function totalSpecReplicas(sets: readonly ReplicaSet[]): number {
  return sets.reduce((sum, set) => sum + specReplicas(set), 0);
}

/** Active pods the sets have (GetActualReplicaCountForReplicaSets). */
export function totalActualReplicas(sets: readonly ReplicaSet[]): number {
  return sets.reduce((sum, set) => sum + (set.status?.replicas ?? 0), 0);
}

export function totalReadyReplicas(sets: readonly ReplicaSet[]): number {
  return sets.reduce((sum, set) => sum + (set.status?.readyReplicas ?? 0), 0);
}

export function totalAvailableReplicas(sets: readonly ReplicaSet[]): number {
  return sets.reduce((sum, set) => sum + (set.status?.availableReplicas ?? 0), 0);
}

export function revisionOf(set: ReplicaSet): number {
  const revision = Number(set.metadata?.annotations?.[revisionAnnotation] ?? 0);
  return Number.isSafeInteger(revision) ? revision : 0;
}

function createdAtMs(set: ReplicaSet): number {
  const time = parseRfc3339(set.metadata?.creationTimestamp ?? "");
  return Number.isNaN(time) ? 0 : time;
}

/** Oldest first, ties by name (controller.ReplicaSetsByCreationTimestamp). */
export function byCreation(sets: readonly ReplicaSet[]): ReplicaSet[] {
  return [...sets].sort((a, b) => {
    const timeA = createdAtMs(a);
    const timeB = createdAtMs(b);
    if (timeA !== timeB) return timeA - timeB;
    const nameA = a.metadata?.name ?? "";
    const nameB = b.metadata?.name ?? "";
    return nameA < nameB ? -1 : nameA > nameB ? 1 : 0;
  });
}

/** Lowest revision first, ties by creation (deploymentutil.ReplicaSetsByRevision). */
export function byRevision(sets: readonly ReplicaSet[]): ReplicaSet[] {
  return byCreation(sets).sort((a, b) => revisionOf(a) - revisionOf(b));
}
