/**
 * One scheduling cycle's decision (kube-scheduler's SchedulePod): PreFilter, then the filters on
 * each node examined, then the choice among the nodes that passed. Pure reading: it writes nothing
 * and changes no cache, so it can be tested on its own; Reserve and binding happen in the scheduler.
 */
import type { Lister } from "../../api/informer/lister.ts";
import type { Node, Pod } from "../../api/objects.ts";
import { errNoNodesAvailable } from "./constants.ts";
import { fitErrorMessage } from "./fit-error.ts";
import { chooseNode, numFeasibleNodesToFind } from "./node-choice.ts";
import { nodeFilterReasons } from "./node-filters.ts";
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
  nodes: Lister<Node>;
  /** Node names in the order the filter pass walks them. */
  nodeNames: () => readonly string[];
  podCount: (nodeName: string) => number;
  volumes: VolumeView;
  /** NodeVolumeLimits; absent, no limit is checked. */
  volumeLimits?: VolumeLimits;
}

interface Feasible {
  nodeName: string;
  podVolumes: PodVolumes;
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
    const nodeNames = this.options.nodeNames();
    if (nodeNames.length === 0) return { kind: "unschedulable", message: errNoNodesAvailable };
    const preFilter = preFilterVolumes(pod, this.options.volumes);
    if (preFilter.kind === "rejected") {
      const message = fitErrorMessage(nodeNames.length, {
        preFilterMessage: preFilter.message,
        nodeReasons: new Map(),
      });
      return { kind: "unschedulable", message };
    }
    const claims = preFilter.kind === "claims" ? preFilter.claims : undefined;
    const nodeReasons = new Map<string, readonly string[]>();
    const feasible = this.findFeasibleNodes(pod, nodeNames, claims, nodeReasons);
    const chosen = chooseNode(feasible, this.options.podCount);
    if (chosen === undefined) {
      return { kind: "unschedulable", message: fitErrorMessage(nodeNames.length, { nodeReasons }) };
    }
    return { kind: "placed", nodeName: chosen.nodeName, podVolumes: chosen.podVolumes };
  }

  /** findNodesThatPassFilters: walks the nodes from the rotating start until enough fit. */
  private findFeasibleNodes(
    pod: Pod,
    nodeNames: readonly string[],
    claims: PodVolumeClaims | undefined,
    nodeReasons: Map<string, readonly string[]>,
  ): Feasible[] {
    const wanted = numFeasibleNodesToFind(nodeNames.length);
    const start = this.nextStartNodeIndex % nodeNames.length;
    const feasible: Feasible[] = [];
    let examined = 0;
    while (examined < nodeNames.length && feasible.length < wanted) {
      const nodeName = nodeNames[(start + examined) % nodeNames.length] as string;
      examined++;
      const node = this.options.nodes.get("", nodeName);
      if (node === undefined) continue;
      const verdict = this.filterNode(pod, node, claims);
      if (verdict.reasons.length === 0) feasible.push({ nodeName, podVolumes: verdict.podVolumes });
      else nodeReasons.set(nodeName, verdict.reasons);
    }
    this.nextStartNodeIndex = (start + examined) % nodeNames.length;
    return feasible;
  }

  /**
   * The filters in kube-scheduler's plugin order (the node's own, NodeVolumeLimits, VolumeBinding);
   * the first that rejects the node decides its reasons.
   */
  private filterNode(pod: Pod, node: Node, claims: PodVolumeClaims | undefined) {
    let reasons = nodeFilterReasons(pod, node);
    if (reasons.length === 0 && this.options.volumeLimits !== undefined) {
      reasons = this.options.volumeLimits.reasons(pod, node.metadata?.name ?? "");
    }
    if (reasons.length > 0 || claims === undefined) return { reasons, podVolumes: noVolumeWork };
    return filterVolumes(claims, node, this.options.volumes);
  }
}
