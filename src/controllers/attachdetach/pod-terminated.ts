/**
 * Kubernetes' IsPodTerminated as the attach/detach controller uses it (spec §2.5): a pod is
 * terminated when it Failed or Succeeded, or when it is being deleted and none of its containers
 * is still running. A terminating pod whose containers still show running — its node is down and
 * nobody reports otherwise — is not terminated, so its volumes stay wanted on that node.
 */
import type { ContainerStatus, Pod } from "kubernetes-types/core/v1.js";

function noneRunning(statuses: readonly ContainerStatus[] | undefined): boolean {
  return (statuses ?? []).every(
    (status) => status.state?.terminated !== undefined || status.state?.waiting !== undefined,
  );
}

export function isPodTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase;
  if (phase === "Failed" || phase === "Succeeded") return true;
  if (!pod.metadata?.deletionTimestamp) return false;
  const status = pod.status;
  return (
    noneRunning(status?.initContainerStatuses) &&
    noneRunning(status?.containerStatuses) &&
    noneRunning(status?.ephemeralContainerStatuses)
  );
}
