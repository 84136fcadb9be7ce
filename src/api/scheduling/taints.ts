/**
 * Taints and tolerations as Kubernetes matches them (k8s.io/api core/v1 `Toleration.ToleratesTaint`,
 * component-helpers `FindMatchingUntoleratedTaint`, `GetMatchingTolerations`). The scheduler uses
 * them to keep pods off tainted nodes, the node lifecycle controller to evict pods from nodes with
 * NoExecute taints, and pod GC to find out-of-service nodes; they live here because controllers
 * never import one another.
 */
import type { Taint, Toleration } from "kubernetes-types/core/v1.js";

export type { Taint, Toleration };

/** The well-known taint keys (k8s.io/api core/v1 well_known_taints.go). */
export const taintNodeNotReady = "node.kubernetes.io/not-ready";
export const taintNodeUnreachable = "node.kubernetes.io/unreachable";
export const taintNodeUnschedulable = "node.kubernetes.io/unschedulable";
export const taintNodeMemoryPressure = "node.kubernetes.io/memory-pressure";
export const taintNodeDiskPressure = "node.kubernetes.io/disk-pressure";
export const taintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable";
export const taintNodePidPressure = "node.kubernetes.io/pid-pressure";
/** Added by an administrator to a node that is shut down for good (non-graceful node shutdown). */
export const taintNodeOutOfService = "node.kubernetes.io/out-of-service";

/** Toleration.ToleratesTaint: effect and key match when set; Equal (or empty) compares values, Exists does not. */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? "") {
    case "":
    case "Equal":
      return (toleration.value ?? "") === (taint.value ?? "");
    case "Exists":
      return true;
    default:
      return false;
  }
}

/** The first toleration in `tolerations` that tolerates `taint`, or undefined. */
function tolerationFor(tolerations: readonly Toleration[], taint: Taint): Toleration | undefined {
  return tolerations.find((toleration) => toleratesTaint(toleration, taint));
}

/**
 * FindMatchingUntoleratedTaint: the first taint (in the node's order) that `filter` selects and no
 * toleration tolerates, or undefined when all selected taints are tolerated.
 */
export function findUntoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  filter: (taint: Taint) => boolean,
): Taint | undefined {
  return taints.find((taint) => filter(taint) && tolerationFor(tolerations, taint) === undefined);
}

/**
 * GetMatchingTolerations: whether every taint is tolerated, and for each taint the toleration that
 * tolerates it (in taint order). `allTolerated` is false as soon as one taint has no toleration.
 */
export function matchingTolerations(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
): { allTolerated: boolean; used: Toleration[] } {
  const used: Toleration[] = [];
  for (const taint of taints) {
    const toleration = tolerationFor(tolerations, taint);
    if (toleration === undefined) return { allTolerated: false, used: [] };
    used.push(toleration);
  }
  return { allTolerated: true, used };
}

/** MatchTaint: two taints are the same taint when key and effect are equal (the value may differ). */
export function sameTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && a.effect === b.effect;
}

export function taintExists(taints: readonly Taint[] | undefined, wanted: Taint): boolean {
  return (taints ?? []).some((taint) => sameTaint(taint, wanted));
}

export function taintKeyExists(taints: readonly Taint[] | undefined, key: string): boolean {
  return (taints ?? []).some((taint) => taint.key === key);
}
