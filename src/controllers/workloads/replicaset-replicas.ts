/**
 * Bringing a ReplicaSet's active pods to `spec.replicas` (replica_set.go manageReplicas).
 * Terminating and finished pods are not active, so a deleted pod is replaced at once, while the old
 * one is still shutting down (and, on a dead node, for as long as it stays Terminating).
 *
 * - Too few: create the difference (at most `replicaSetBurstReplicas`) in slow-start batches of
 *   1, 2, 4, … so a template the API rejects costs one failed call, not hundreds.
 * - Too many: delete the pods that are cheapest to lose (`pods-to-delete.ts`).
 * Expectations are recorded before writing, so the next sync waits until the informer has seen
 * every write instead of acting on a cache that does not show them yet.
 */

import { isNotFound } from "../../api/errors.ts";
import type { Pod, ReplicaSet } from "../../api/objects.ts";
import { objectKey } from "../../api/objects.ts";
import { defaultReplicas, replicaSetBurstReplicas, slowStartInitialBatchSize } from "./constants.ts";
import type { ControllerExpectations } from "./expectations.ts";
import { podsToDelete } from "./pods-to-delete.ts";
import type { ReplicaSetPodControl } from "./replicaset-pod-control.ts";

interface ManageReplicasInput {
  set: ReplicaSet;
  /** The set's queue key, under which expectations are kept. */
  key: string;
  activePods: readonly Pod[];
  control: ReplicaSetPodControl;
  expectations: ControllerExpectations;
}

export async function manageReplicas(input: ManageReplicasInput): Promise<void> {
  const wanted = input.set.spec?.replicas ?? defaultReplicas;
  const difference = input.activePods.length - wanted;
  if (difference < 0) await createMissing(input, Math.min(-difference, replicaSetBurstReplicas));
  else if (difference > 0) await deleteExtra(input, Math.min(difference, replicaSetBurstReplicas));
}

async function createMissing(input: ManageReplicasInput, count: number): Promise<void> {
  input.expectations.expectCreations(input.key, count);
  const { successes, error } = await slowStartBatch(count, () => input.control.createPod(input.set));
  // Pods that were never created will never be observed.
  for (let skipped = count - successes; skipped > 0; skipped--) input.expectations.creationObserved(input.key);
  if (error !== undefined) throw error;
}

/**
 * Calls `create` `count` times in batches that double while every call of a batch succeeds
 * (controller.slowStartBatch). Returns how many succeeded and the first failure.
 */
async function slowStartBatch(
  count: number,
  create: () => Promise<unknown>,
): Promise<{ successes: number; error?: unknown }> {
  let successes = 0;
  let remaining = count;
  for (let batchSize = Math.min(remaining, slowStartInitialBatchSize); batchSize > 0; ) {
    const results = await Promise.allSettled(Array.from({ length: batchSize }, create));
    const failure = results.find((result) => result.status === "rejected");
    successes += results.filter((result) => result.status === "fulfilled").length;
    if (failure !== undefined) return { successes, error: failure.reason };
    remaining -= batchSize;
    batchSize = Math.min(2 * batchSize, remaining);
  }
  return { successes };
}

async function deleteExtra(input: ManageReplicasInput, count: number): Promise<void> {
  const victims = podsToDelete(input.activePods, count);
  input.expectations.expectDeletions(input.key, victims.map(objectKey));
  const results = await Promise.allSettled(victims.map((pod) => input.control.deletePod(input.set, pod)));
  let firstError: unknown;
  results.forEach((result, index) => {
    if (result.status === "fulfilled") return;
    // A failed delete will never be observed; a pod already gone is not an error.
    input.expectations.deletionObserved(input.key, objectKey(victims[index] ?? {}));
    if (!isNotFound(result.reason)) firstError ??= result.reason;
  });
  if (firstError !== undefined) throw firstError;
}
