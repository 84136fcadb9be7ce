/**
 * How far a rolling update may go above and below the wanted number of pods
 * (deploymentutil.ResolveFenceposts): `maxSurge` extra pods, rounded up from a percentage, and
 * `maxUnavailable` missing ones, rounded down. Both default to 25%, so 1 replica surges to 2 and
 * never goes below 1 — the new pod exists before the old one is deleted. If both round to zero,
 * one pod may be unavailable, or the rollout could never move.
 */
import type { Deployment } from "../../api/objects.ts";
import { defaultMaxSurge, defaultMaxUnavailable, defaultReplicas } from "./constants.ts";

type IntOrPercent = number | string;

const percentPattern = /^([0-9]+)%$/;
const hundredPercent = 100;

/** intstr.GetScaledValueFromIntOrPercent: an integer as is, a percentage of `total` rounded as asked. */
export function scaledValue(value: IntOrPercent, total: number, roundUp: boolean, field: string): number {
  if (typeof value === "number") return value;
  const match = percentPattern.exec(value);
  if (match === null) {
    throw new Error(`${field}: "${value}" is neither an integer nor a percentage such as "25%"`);
  }
  const exact = (Number(match[1]) * total) / hundredPercent;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

export function desiredReplicas(deployment: Deployment): number {
  return deployment.spec?.replicas ?? defaultReplicas;
}

export function isRollingUpdate(deployment: Deployment): boolean {
  return (deployment.spec?.strategy?.type ?? "RollingUpdate") === "RollingUpdate";
}

function fenceposts(deployment: Deployment): { surge: number; unavailable: number } {
  const rollingUpdate = deployment.spec?.strategy?.rollingUpdate;
  const desired = desiredReplicas(deployment);
  const surgePath = "spec.strategy.rollingUpdate.maxSurge";
  const unavailablePath = "spec.strategy.rollingUpdate.maxUnavailable";
  const surge = scaledValue(rollingUpdate?.maxSurge ?? defaultMaxSurge, desired, true, surgePath);
  const unavailable = scaledValue(
    rollingUpdate?.maxUnavailable ?? defaultMaxUnavailable,
    desired,
    false,
    unavailablePath,
  );
  return { surge, unavailable: surge === 0 && unavailable === 0 ? 1 : unavailable };
}

/** Pods allowed above the wanted number during a rolling update; 0 for Recreate. */
export function maxSurge(deployment: Deployment): number {
  return isRollingUpdate(deployment) ? fenceposts(deployment).surge : 0;
}

/** Pods allowed to be unavailable during a rolling update (never more than wanted); 0 for Recreate. */
export function maxUnavailable(deployment: Deployment): number {
  const desired = desiredReplicas(deployment);
  if (!isRollingUpdate(deployment) || desired === 0) return 0;
  return Math.min(fenceposts(deployment).unavailable, desired);
}
