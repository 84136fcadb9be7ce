/**
 * The Recreate strategy (recreate.go rolloutRecreate): scale every old ReplicaSet to zero, wait
 * until none of their pods exists any more (a Terminating pod still counts, so a pod stuck on a
 * dead node blocks the rollout), and only then create and scale up the new ReplicaSet. Old and new
 * pods never run at the same time.
 */
import type { Deployment, Pod, ReplicaSet } from "../../api/objects.ts";
import type { DeploymentReplicaSets, NewReplicaSetWriter } from "./deployment-replicasets.ts";
import { desiredReplicas } from "./deployment-rollout-limits.ts";
import type { ReplicaSetScaler } from "./deployment-scaler.ts";
import { specReplicas, totalActualReplicas } from "./replicaset-totals.ts";

interface RecreateTools {
  scaler: ReplicaSetScaler;
  writer: NewReplicaSetWriter;
  /** The pods a ReplicaSet controls, terminating ones included. */
  podsOf: (set: ReplicaSet) => readonly Pod[];
}

/** Takes one step; returns the sets as they now are. */
export async function rolloutRecreate(
  deployment: Deployment,
  sets: DeploymentReplicaSets,
  tools: RecreateTools,
): Promise<DeploymentReplicaSets> {
  const oldSets = [...sets.oldSets];
  let scaledDown = false;
  for (const [index, set] of oldSets.entries()) {
    if (specReplicas(set) === 0) continue;
    const result = await tools.scaler.scale(set, 0, deployment);
    oldSets[index] = result.set;
    scaledDown ||= result.scaled;
  }
  if (scaledDown || oldPodsExist(oldSets, tools.podsOf)) return { newSet: sets.newSet, oldSets };
  const { newSet } = await tools.writer.sync(deployment, { newSet: sets.newSet, oldSets }, true);
  if (newSet === undefined) return { newSet, oldSets };
  const result = await tools.scaler.scale(newSet, desiredReplicas(deployment), deployment);
  return { newSet: result.set, oldSets };
}

/** oldPodsRunning: finished pods do not count, every other pod object does. */
function oldPodsExist(oldSets: readonly ReplicaSet[], podsOf: RecreateTools["podsOf"]): boolean {
  if (totalActualReplicas(oldSets) > 0) return true;
  return oldSets.some((set) =>
    podsOf(set).some((pod) => pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed"),
  );
}
