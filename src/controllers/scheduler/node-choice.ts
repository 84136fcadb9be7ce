/**
 * How many nodes one attempt examines, and which feasible node wins.
 *
 * Examining: as kube-scheduler's numFeasibleNodesToFind, a cluster under 100 nodes is examined in
 * full; a larger one only until enough feasible nodes are found — 50% of the nodes, one point less
 * per 125 nodes, never under 5% nor under 100 nodes (5,000 nodes: 10%, 500 nodes). Each attempt
 * starts where the previous one stopped, so every node gets its turn.
 *
 * Choosing: kube-scheduler scores nodes with a dozen weighted plugins and breaks ties at random.
 * kvol replaces that with one deterministic rule a reader can predict: the node with the fewest
 * pods (bound or being bound), then the smallest name. It spreads pods like the default
 * NodeResourcesBalancedAllocation / spread scoring does for identical pods, and the same seed
 * always gives the same placement.
 */
import {
  adaptivePercentageBase,
  adaptivePercentageNodesPerPoint,
  minFeasibleNodesPercentageToFind,
  minFeasibleNodesToFind,
} from "./constants.ts";

export function numFeasibleNodesToFind(numAllNodes: number): number {
  if (numAllNodes < minFeasibleNodesToFind) return numAllNodes;
  const percentage = Math.max(
    adaptivePercentageBase - Math.floor(numAllNodes / adaptivePercentageNodesPerPoint),
    minFeasibleNodesPercentageToFind,
  );
  return Math.max(Math.floor((numAllNodes * percentage) / 100), minFeasibleNodesToFind);
}

/** The feasible node with the fewest pods, then the smallest name; undefined when there is none. */
export function chooseNode<T extends { nodeName: string }>(
  feasible: readonly T[],
  podCount: (nodeName: string) => number,
): T | undefined {
  let best: T | undefined;
  let bestCount = Number.POSITIVE_INFINITY;
  for (const candidate of feasible) {
    const count = podCount(candidate.nodeName);
    if (count < bestCount || (count === bestCount && best !== undefined && candidate.nodeName < best.nodeName)) {
      best = candidate;
      bestCount = count;
    }
  }
  return best;
}
