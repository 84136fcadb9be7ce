/**
 * Which pods use a claim, answered from the pod informer's pods-by-claim index (Kubernetes'
 * `common.PodPVCIndex`), never by listing pods. Shared by the PV controller (WaitForPodScheduled,
 * Recycle) and the pvc-protection controller.
 */
import type { Indexer } from "../../api/informer/indexer.ts";
import { ensureIndex, podsByClaim } from "../../api/informer/indexes.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { Pod } from "../../api/objects.ts";

/** Adds the pods-by-claim index unless another component sharing the informer already did. */
export function ensurePodsByClaimIndex(informer: SharedInformer<Pod>): void {
  ensureIndex(informer, podsByClaim);
}

/** A pod whose containers will not run again: it holds no volume any more. */
export function isPodTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === "Succeeded" || phase === "Failed";
}

/** Pods that reference `claimKey` (`<namespace>/<name>`), terminated or not. */
export function podsReferencingClaim(pods: Indexer<Pod>, claimKey: string): Pod[] {
  return pods.byIndex(podsByClaim.name, claimKey);
}

/** Names of the non-terminated pods using the claim that no node has been chosen for yet. */
export function unscheduledPodNames(pods: Indexer<Pod>, claimKey: string): string[] {
  return podsReferencingClaim(pods, claimKey)
    .filter((pod) => !isPodTerminated(pod) && !pod.spec?.nodeName)
    .map((pod) => pod.metadata?.name ?? "");
}

/** `<namespace>/<name>` of every non-terminated pod using the claim, sorted. */
export function activePodKeys(pods: Indexer<Pod>, claimKey: string): string[] {
  return podsReferencingClaim(pods, claimKey)
    .filter((pod) => !isPodTerminated(pod))
    .map((pod) => `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`)
    .sort();
}
