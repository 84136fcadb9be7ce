/**
 * The RollingUpdate strategy (rolling.go rolloutRolling), one step per sync:
 * 1. grow the new ReplicaSet as far as `maxSurge` allows (total pods ≤ replicas + maxSurge);
 * 2. otherwise shrink old ReplicaSets as far as `maxUnavailable` allows (available pods stay ≥
 *    replicas − maxUnavailable), unhealthy old pods first.
 * With the defaults and one replica the new pod is created first and the old one deleted only once
 * the new one is available — so for a moment both exist, and both want the same volume.
 */
import type { Deployment, ReplicaSet } from "../../api/objects.ts";
import type { DeploymentReplicaSets } from "./deployment-replicasets.ts";
import { newSetReplicas } from "./deployment-replicasets.ts";
import { desiredReplicas, maxUnavailable } from "./deployment-rollout-limits.ts";
import type { ReplicaSetScaler } from "./deployment-scaler.ts";
import { byCreation, specReplicas, totalAvailableReplicas, totalSpecReplicas } from "./replicaset-totals.ts";

interface RollingStep {
  deployment: Deployment;
  newSet: ReplicaSet;
  oldSets: ReplicaSet[];
  scaler: ReplicaSetScaler;
}

/** Takes one step; returns the sets as they now are. */
export async function rolloutRolling(
  deployment: Deployment,
  sets: DeploymentReplicaSets & { newSet: ReplicaSet },
  scaler: ReplicaSetScaler,
): Promise<DeploymentReplicaSets> {
  const step: RollingStep = { deployment, newSet: sets.newSet, oldSets: [...sets.oldSets], scaler };
  if (await scaleUpNewSet(step)) return step;
  await scaleDownOldSets(step);
  return step;
}

async function scaleUpNewSet(step: RollingStep): Promise<boolean> {
  const desired = desiredReplicas(step.deployment);
  const current = specReplicas(step.newSet);
  if (current === desired) return false;
  const target =
    current > desired ? desired : newSetReplicas(step.deployment, [...step.oldSets, step.newSet], step.newSet);
  const result = await step.scaler.scale(step.newSet, target, step.deployment);
  step.newSet = result.set;
  return result.scaled;
}

/** reconcileOldReplicaSets */
async function scaleDownOldSets(step: RollingStep): Promise<boolean> {
  if (totalSpecReplicas(step.oldSets) === 0) return false;
  const allPods = totalSpecReplicas([...step.oldSets, step.newSet]);
  const minAvailable = desiredReplicas(step.deployment) - maxUnavailable(step.deployment);
  const newSetUnavailable = specReplicas(step.newSet) - (step.newSet.status?.availableReplicas ?? 0);
  const maxScaledDown = allPods - minAvailable - newSetUnavailable;
  if (maxScaledDown <= 0) return false;
  const cleanedUp = await scaleDownUnhealthyOldPods(step, maxScaledDown);
  const scaledDown = await scaleDownAvailableOldPods(step);
  return cleanedUp + scaledDown > 0;
}

/** Old pods that are not available cost no availability: remove them first (cleanupUnhealthyReplicas). */
async function scaleDownUnhealthyOldPods(step: RollingStep, maxCleanup: number): Promise<number> {
  let total = 0;
  const sets = byCreation(step.oldSets);
  for (const [index, set] of sets.entries()) {
    if (total >= maxCleanup) break;
    const unhealthy = specReplicas(set) - (set.status?.availableReplicas ?? 0);
    if (specReplicas(set) === 0 || unhealthy <= 0) continue;
    const count = Math.min(maxCleanup - total, unhealthy);
    const result = await step.scaler.scale(set, specReplicas(set) - count, step.deployment);
    sets[index] = result.set;
    total += count;
  }
  step.oldSets = sets;
  return total;
}

/** Then available ones, oldest set first, down to replicas − maxUnavailable (scaleDownOldReplicaSetsForRollingUpdate). */
async function scaleDownAvailableOldPods(step: RollingStep): Promise<number> {
  const minAvailable = desiredReplicas(step.deployment) - maxUnavailable(step.deployment);
  const available = totalAvailableReplicas([...step.oldSets, step.newSet]);
  if (available <= minAvailable) return 0;
  const wanted = available - minAvailable;
  let total = 0;
  const sets = byCreation(step.oldSets);
  for (const [index, set] of sets.entries()) {
    if (total >= wanted) break;
    if (specReplicas(set) === 0) continue;
    const count = Math.min(specReplicas(set), wanted - total);
    const result = await step.scaler.scale(set, specReplicas(set) - count, step.deployment);
    sets[index] = result.set;
    total += count;
  }
  step.oldSets = sets;
  return total;
}
