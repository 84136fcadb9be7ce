/**
 * The node-only filter plugins, in kube-scheduler's order: NodeUnschedulable, TaintToleration,
 * NodeAffinity. The first plugin that rejects a node gives the node's reasons; volume binding runs
 * after these (volume-binding.ts).
 *
 * Not-ready nodes. kube-scheduler has no "node Ready" filter: the node lifecycle controller taints
 * a node whose Ready condition is False with `node.kubernetes.io/not-ready:NoSchedule` and one whose
 * Ready is Unknown with `node.kubernetes.io/unreachable:NoSchedule`, and the kubelet registers a
 * node with the not-ready taint until it reports Ready. So that a hand-made or just-failed node is
 * treated the same before that taint lands, this filter reads the Ready condition as the taint it
 * implies. The message is the TaintToleration one users see once the taint is there, and a pod
 * that tolerates the taint (a DaemonSet's) still fits.
 */
import type { Node, Pod } from "../../api/objects.ts";
import { matchesNodeSelectorMap, matchesNodeSelectorTerms } from "../../api/scheduling/node-selector.ts";
import {
  findUntoleratedTaint,
  type Taint,
  taintExists,
  taintNodeNotReady,
  taintNodeUnreachable,
  taintNodeUnschedulable,
  toleratesTaint,
} from "../../api/scheduling/taints.ts";
import { errReasonNodeAffinity, errReasonUnschedulable, untoleratedTaintReason } from "./constants.ts";

const none: readonly string[] = [];

const blocksScheduling = (taint: Taint): boolean => taint.effect === "NoSchedule" || taint.effect === "NoExecute";

/** The NoSchedule taint the node's Ready condition implies, or undefined for a Ready node. */
function readyConditionTaint(node: Node): Taint | undefined {
  const ready = node.status?.conditions?.find((condition) => condition.type === "Ready");
  if (ready?.status === "True") return undefined;
  return { key: ready?.status === "Unknown" ? taintNodeUnreachable : taintNodeNotReady, effect: "NoSchedule" };
}

/** The node's taints plus the one its Ready condition implies, unless it already carries it. */
function computeEffectiveTaints(node: Node): readonly Taint[] {
  const taints = node.spec?.taints ?? [];
  const implied = readyConditionTaint(node);
  return implied === undefined || taintExists(taints, implied) ? taints : [...taints, implied];
}

/** What the filters read from a node alone, worked out once per node version. */
interface NodeTraits {
  effectiveTaints: readonly Taint[];
  /** Whether any effective taint can keep a pod off the node; when none can, no pod needs a toleration. */
  hasBlockingTaint: boolean;
}

/**
 * Cached objects are frozen and replaced on every change, so one entry per node object is never
 * stale: every pod examined against the same node version reuses it (kube-scheduler's NodeInfo).
 */
const traitsByNode = new WeakMap<Node, NodeTraits>();

function nodeTraits(node: Node): NodeTraits {
  let traits = traitsByNode.get(node);
  if (traits === undefined) {
    const effectiveTaints = computeEffectiveTaints(node);
    traits = { effectiveTaints, hasBlockingTaint: effectiveTaints.some(blocksScheduling) };
    if (Object.isFrozen(node)) traitsByNode.set(node, traits);
  }
  return traits;
}

/** NodeUnschedulable: a cordoned node takes only pods that tolerate `node.kubernetes.io/unschedulable:NoSchedule`. */
function unschedulableReasons(pod: Pod, node: Node): readonly string[] {
  if (!node.spec?.unschedulable) return none;
  const cordon: Taint = { key: taintNodeUnschedulable, effect: "NoSchedule" };
  const tolerated = (pod.spec?.tolerations ?? []).some((toleration) => toleratesTaint(toleration, cordon));
  return tolerated ? none : [errReasonUnschedulable];
}

/** TaintToleration: every NoSchedule and NoExecute taint must be tolerated; the first one that is not is named. */
function taintReasons(pod: Pod, node: Node): readonly string[] {
  const traits = nodeTraits(node);
  if (!traits.hasBlockingTaint) return none;
  const untolerated = findUntoleratedTaint(traits.effectiveTaints, pod.spec?.tolerations ?? [], blocksScheduling);
  return untolerated === undefined ? none : [untoleratedTaintReason(untolerated.key, untolerated.value)];
}

/** NodeAffinity: `spec.nodeSelector` and the required node affinity must both match. */
function affinityReasons(pod: Pod, node: Node): readonly string[] {
  if (!matchesNodeSelectorMap(pod.spec?.nodeSelector, node)) return [errReasonNodeAffinity];
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required !== undefined && !matchesNodeSelectorTerms(node, required.nodeSelectorTerms)) {
    return [errReasonNodeAffinity];
  }
  return none;
}

/** The reasons the first rejecting node filter gives, or an empty list when the node passes them all. */
export function nodeFilterReasons(pod: Pod, node: Node): readonly string[] {
  const unschedulable = unschedulableReasons(pod, node);
  if (unschedulable.length > 0) return unschedulable;
  const taints = taintReasons(pod, node);
  if (taints.length > 0) return taints;
  return affinityReasons(pod, node);
}
