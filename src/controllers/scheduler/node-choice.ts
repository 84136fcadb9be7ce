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

/**
 * The feasible node with the fewest pods, then the smallest name, kept as the filter pass offers
 * nodes one by one: hundreds of nodes pass per pod, and none of them needs an object of its own.
 */
export class NodeChoice<V> {
  private bestName: string | undefined;
  private bestValue: V | undefined;
  private bestCount = Number.POSITIVE_INFINITY;

  constructor(private readonly podCount: (nodeName: string) => number) {}

  /** A node that passed the filters, with what binding it needs (`value`). */
  offer(nodeName: string, value: V): void {
    const count = this.podCount(nodeName);
    if (count > this.bestCount) return;
    if (count === this.bestCount && this.bestName !== undefined && nodeName >= this.bestName) return;
    this.bestName = nodeName;
    this.bestValue = value;
    this.bestCount = count;
  }

  /** The node chosen among those offered, with its value; undefined when none was. */
  chosen(): { nodeName: string; value: V } | undefined {
    if (this.bestName === undefined) return undefined;
    return { nodeName: this.bestName, value: this.bestValue as V };
  }
}
