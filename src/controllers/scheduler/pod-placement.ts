/**
 * One scheduling cycle's decision (kube-scheduler's SchedulePod): PreFilter, then the filters on
 * each node examined, then the choice among the nodes that passed. Pure reading: it writes nothing
 * and changes no cache, so it can be tested on its own; Reserve and binding happen in the scheduler.
 */
import type { Node, Pod } from "../../api/objects.ts";
import { errNoNodesAvailable } from "./constants.ts";
import { fitErrorMessage } from "./fit-error.ts";
import { NodeChoice, numFeasibleNodesToFind } from "./node-choice.ts";
import { nodeFilterReasons } from "./node-filters.ts";
import type { NodesWithNames } from "./scheduler-cache.ts";
import {
  filterVolumes,
  type PodVolumeClaims,
  type PodVolumes,
  preFilterVolumes,
  type VolumeView,
} from "./volume-binding.ts";
import type { VolumeLimits } from "./volume-limits.ts";

type PlacementResult =
  | { kind: "placed"; nodeName: string; podVolumes: PodVolumes }
  /** No node fits; `message` is what FailedScheduling and the PodScheduled condition say. */
  | { kind: "unschedulable"; message: string };

interface PodPlacementOptions {
  /** The nodes in the order the filter pass walks them, with their names at the same indexes. */
  nodes: () => NodesWithNames;
  podCount: (nodeName: string) => number;
  volumes: VolumeView;
  /** NodeVolumeLimits; absent, no limit is checked. */
  volumeLimits?: VolumeLimits;
}

const noVolumeWork: PodVolumes = Object.freeze({ staticBindings: [], dynamicProvisions: [] }) as PodVolumes;

export class PodPlacement {
  private readonly options: PodPlacementOptions;
  /** Where the next attempt starts walking the nodes (nextStartNodeIndex). */
  private nextStartNodeIndex = 0;

  constructor(options: PodPlacementOptions) {
    this.options = options;
  }

  /** Decides where `pod` goes; throws only for internal errors (the caller reports SchedulerError). */
  place(pod: Pod): PlacementResult {
    const { nodes, names: nodeNames } = this.options.nodes();
    if (nodes.length === 0) return { kind: "unschedulable", message: errNoNodesAvailable };
    const preFilter = preFilterVolumes(pod, this.options.volumes);
    if (preFilter.kind === "rejected") {
      const message = fitErrorMessage(nodes.length, {
        preFilterMessage: preFilter.message,
        nodeReasons: new Map(),
      });
      return { kind: "unschedulable", message };
    }
    const claims = preFilter.kind === "claims" ? preFilter.claims : undefined;
    const nodeReasons = new Map<string, readonly string[]>();
    const chosen = this.chooseAmongFeasibleNodes(pod, nodes, nodeNames, claims, nodeReasons).chosen();
    if (chosen === undefined) {
      return { kind: "unschedulable", message: fitErrorMessage(nodes.length, { nodeReasons }) };
    }
    return { kind: "placed", nodeName: chosen.nodeName, podVolumes: chosen.value };
  }

  /**
   * Kubernetes' findNodesThatPassFilters and the choice among what it finds, in one walk: from the
   * rotating start until enough nodes fit, each feasible one is offered to the choice as it is found
   * (no list of feasible nodes is built). Returns the choice; the rejected nodes' reasons go to `nodeReasons`.
   */
  private chooseAmongFeasibleNodes(
    pod: Pod,
    nodes: readonly Node[],
    nodeNames: readonly string[],
    claims: PodVolumeClaims | undefined,
    nodeReasons: Map<string, readonly string[]>,
  ): NodeChoice<PodVolumes> {
    const wanted = numFeasibleNodesToFind(nodes.length);
    const start = this.nextStartNodeIndex % nodes.length;
    const choice = new NodeChoice<PodVolumes>(this.options.podCount);
    let feasible = 0;
    let examined = 0;
    while (examined < nodes.length && feasible < wanted) {
      const index = (start + examined) % nodes.length;
      const node = nodes[index] as Node;
      const nodeName = nodeNames[index] as string;
      examined++;
      const verdict = this.filterNode(pod, node, nodeName, claims);
      if (verdict.reasons.length > 0) {
        nodeReasons.set(nodeName, verdict.reasons);
        continue;
      }
      feasible++;
      choice.offer(nodeName, verdict.podVolumes);
    }
    this.nextStartNodeIndex = (start + examined) % nodes.length;
    return choice;
  }

  /**
   * The filters in kube-scheduler's plugin order (the node's own, NodeVolumeLimits, VolumeBinding);
   * the first that rejects the node decides its reasons.
   */
  private filterNode(pod: Pod, node: Node, nodeName: string, claims: PodVolumeClaims | undefined) {
    let reasons = nodeFilterReasons(pod, node);
    if (reasons.length === 0 && this.options.volumeLimits !== undefined) {
      reasons = this.options.volumeLimits.reasons(pod, nodeName);
    }
    if (reasons.length > 0 || claims === undefined) return { reasons, podVolumes: noVolumeWork };
    return filterVolumes(claims, node, this.options.volumes);
  }
}
