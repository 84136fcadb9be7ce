/**
 * Which pods a ReplicaSet removes first when it has too many (controller.ActivePodsWithRanks): the
 * ones losing them costs least. In order: not yet scheduled; Pending before Unknown before Running;
 * not Ready; a lower `controller.kubernetes.io/pod-deletion-cost`; sharing a node with more of the
 * set's pods; Ready for less time; restarted more; created more recently.
 *
 * Kubernetes compares times on a logarithmic scale and breaks ties at random
 * (LogarithmicScaleDown); kvol compares them exactly and breaks ties by name, so a run replays.
 */
import type { Pod } from "../../api/objects.ts";
import { parseRfc3339 } from "../../runtime/clock.ts";
import { isPodReady, readyCondition } from "./pod-state.ts";

export const podDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost";

const phaseOrdinal: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

interface Ranked {
  pod: Pod;
  /** How many of the candidates share this pod's node. */
  colocated: number;
}

function deletionCost(pod: Pod): number {
  const cost = Number(pod.metadata?.annotations?.[podDeletionCostAnnotation] ?? 0);
  return Number.isFinite(cost) ? cost : 0;
}

function maxRestarts(pod: Pod): number {
  return Math.max(0, ...(pod.status?.containerStatuses ?? []).map((status) => status.restartCount));
}

/** Epoch ms of a timestamp; an absent one sorts as the newest of all. */
function timeOrNewest(timestamp: string | undefined): number {
  return timestamp === undefined ? Number.POSITIVE_INFINITY : parseRfc3339(timestamp);
}

type Comparison = (a: Ranked, b: Ranked) => number;

/** Each returns < 0 when `a` should go before `b`. */
const comparisons: readonly Comparison[] = [
  (a, b) => Number(Boolean(a.pod.spec?.nodeName)) - Number(Boolean(b.pod.spec?.nodeName)),
  (a, b) => (phaseOrdinal[a.pod.status?.phase ?? ""] ?? 0) - (phaseOrdinal[b.pod.status?.phase ?? ""] ?? 0),
  (a, b) => Number(isPodReady(a.pod)) - Number(isPodReady(b.pod)),
  (a, b) => deletionCost(a.pod) - deletionCost(b.pod),
  (a, b) => b.colocated - a.colocated,
  (a, b) => {
    if (!isPodReady(a.pod) || !isPodReady(b.pod)) return 0;
    const readySince = (ranked: Ranked) => timeOrNewest(readyCondition(ranked.pod)?.lastTransitionTime);
    return compareDescending(readySince(a), readySince(b));
  },
  (a, b) => maxRestarts(b.pod) - maxRestarts(a.pod),
  (a, b) =>
    compareDescending(timeOrNewest(a.pod.metadata?.creationTimestamp), timeOrNewest(b.pod.metadata?.creationTimestamp)),
  (a, b) => compareText(a.pod.metadata?.name ?? "", b.pod.metadata?.name ?? ""),
];

function compareDescending(a: number, b: number): number {
  return a === b ? 0 : a > b ? -1 : 1;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The `count` pods of `candidates` to delete first. */
export function podsToDelete(candidates: readonly Pod[], count: number): Pod[] {
  const perNode = new Map<string, number>();
  for (const pod of candidates) {
    const node = pod.spec?.nodeName;
    if (node) perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  const ranked: Ranked[] = candidates.map((pod) => ({
    pod,
    colocated: pod.spec?.nodeName ? (perNode.get(pod.spec.nodeName) ?? 0) : 0,
  }));
  ranked.sort((a, b) => {
    for (const compare of comparisons) {
      const order = compare(a, b);
      if (order !== 0) return order;
    }
    return 0;
  });
  return ranked.slice(0, count).map((entry) => entry.pod);
}
