/**
 * Old ReplicaSets kept for rollbacks (sync.go cleanupDeployment): once a rollout is complete, the
 * oldest sets beyond `spec.revisionHistoryLimit` (default 10) are deleted — only empty ones that
 * their controller has caught up with, so no pod is deleted this way.
 */
import type { Client } from "../../api/client/client.ts";
import { isNotFound } from "../../api/errors.ts";
import type { Deployment, ReplicaSet } from "../../api/objects.ts";
import { defaultRevisionHistoryLimit } from "./constants.ts";
import { byRevision, specReplicas } from "./replicaset-totals.ts";

function isEmptyAndObserved(set: ReplicaSet): boolean {
  return (
    (set.status?.replicas ?? 0) === 0 &&
    specReplicas(set) === 0 &&
    (set.metadata?.generation ?? 0) <= (set.status?.observedGeneration ?? 0)
  );
}

export async function cleanupOldReplicaSets(
  client: Client,
  deployment: Deployment,
  oldSets: readonly ReplicaSet[],
): Promise<void> {
  const limit = deployment.spec?.revisionHistoryLimit ?? defaultRevisionHistoryLimit;
  const alive = oldSets.filter((set) => set.metadata?.deletionTimestamp === undefined);
  const excess = alive.length - limit;
  if (excess <= 0) return;
  for (const set of byRevision(alive).slice(0, excess)) {
    if (!isEmptyAndObserved(set)) continue;
    try {
      await client.replicaSets.delete(set.metadata?.namespace ?? "", set.metadata?.name ?? "");
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
