/**
 * A Deployment's status from its ReplicaSets (sync.go calculateStatus): pods that exist, are at
 * the new template, are Ready and are available, and the `Available` condition that
 * `kubectl rollout status` and users watch. Written only when it changed.
 *
 * The `Progressing` condition and progress deadlines are not reported.
 */
import type { Client } from "../../api/client/client.ts";
import { isNotFound } from "../../api/errors.ts";
import type { Deployment, ReplicaSet } from "../../api/objects.ts";
import { jsonEqual } from "../../api/store/json-equal.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import type { DeploymentReplicaSets } from "./deployment-replicasets.ts";
import { desiredReplicas, maxUnavailable } from "./deployment-rollout-limits.ts";
import {
  totalActualReplicas,
  totalAvailableReplicas,
  totalReadyReplicas,
  totalSpecReplicas,
} from "./replicaset-totals.ts";

export type DeploymentStatus = NonNullable<Deployment["status"]>;
type DeploymentCondition = NonNullable<DeploymentStatus["conditions"]>[number];

function availableCondition(deployment: Deployment, available: number, nowMs: number): DeploymentCondition {
  const now = formatRfc3339(nowMs);
  const enough = available >= desiredReplicas(deployment) - maxUnavailable(deployment);
  return {
    type: "Available",
    status: enough ? "True" : "False",
    reason: enough ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
    message: enough ? "Deployment has minimum availability." : "Deployment does not have minimum availability.",
    lastUpdateTime: now,
    lastTransitionTime: now,
  };
}

/** deploymentutil.SetDeploymentCondition: an unchanged status and reason keeps the old condition and its times. */
function withCondition(conditions: readonly DeploymentCondition[], next: DeploymentCondition): DeploymentCondition[] {
  const current = conditions.find((condition) => condition.type === next.type);
  if (current !== undefined && current.status === next.status && current.reason === next.reason) return [...conditions];
  const condition =
    current !== undefined && current.status === next.status
      ? { ...next, lastTransitionTime: current.lastTransitionTime }
      : next;
  return [...conditions.filter((existing) => existing.type !== next.type), condition];
}

export function deploymentStatusFrom(
  deployment: Deployment,
  sets: DeploymentReplicaSets,
  nowMs: number,
): DeploymentStatus {
  const all: ReplicaSet[] = sets.newSet === undefined ? [...sets.oldSets] : [...sets.oldSets, sets.newSet];
  const available = totalAvailableReplicas(all);
  return {
    ...deployment.status,
    observedGeneration: deployment.metadata?.generation,
    replicas: totalActualReplicas(all),
    updatedReplicas: sets.newSet?.status?.replicas ?? 0,
    readyReplicas: totalReadyReplicas(all),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, totalSpecReplicas(all) - available),
    conditions: withCondition(deployment.status?.conditions ?? [], availableCondition(deployment, available, nowMs)),
  };
}

export async function writeDeploymentStatus(
  client: Client,
  deployment: Deployment,
  next: DeploymentStatus,
): Promise<void> {
  if (jsonEqual(deployment.status ?? {}, next)) return;
  try {
    await client.deployments.mutate(
      deployment.metadata?.namespace ?? "",
      deployment.metadata?.name ?? "",
      (draft) => {
        // The collision count may have been raised by this sync; never lower it.
        const collisionCount = Math.max(draft.status?.collisionCount ?? 0, next.collisionCount ?? 0);
        draft.status = { ...next, ...(collisionCount > 0 ? { collisionCount } : {}) };
      },
      { subresource: "status" },
    );
  } catch (error) {
    // Deleted meanwhile: nothing left to report on.
    if (!isNotFound(error)) throw error;
  }
}
