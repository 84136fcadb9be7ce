/**
 * How the workload controllers read a pod's state (`pkg/api/v1/pod` and `pkg/controller` helpers).
 * A pod that is terminating (deletionTimestamp set) or finished (Succeeded, Failed) is not active:
 * a ReplicaSet replaces it at once, while a StatefulSet waits for the object to be gone.
 */
import type { Pod } from "../../api/objects.ts";
import { parseRfc3339 } from "../../runtime/clock.ts";
import { msPerSecond } from "./constants.ts";

type PodCondition = NonNullable<NonNullable<Pod["status"]>["conditions"]>[number];

export function readyCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((condition) => condition.type === "Ready");
}

/** The Ready condition is True (podutil.IsPodReady). */
export function isPodReady(pod: Pod): boolean {
  return readyCondition(pod)?.status === "True";
}

export function isPodRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === "Running" && isPodReady(pod);
}

export function isPodTerminating(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp !== undefined;
}

/** Not finished and not being deleted (controller.IsPodActive). */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== "Succeeded" && phase !== "Failed" && !isPodTerminating(pod);
}

/** Ready for at least `minReadySeconds` (podutil.IsPodAvailable). */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds === 0) return true;
  const since = readyCondition(pod)?.lastTransitionTime;
  if (since === undefined) return false;
  return parseRfc3339(since) + minReadySeconds * msPerSecond < nowMs;
}
