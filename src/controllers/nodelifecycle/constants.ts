/**
 * Names, keys and messages of the node lifecycle controller, the taint eviction controller and pod
 * GC, word for word as Kubernetes writes them. Timers live in src/api/timers.ts.
 */
import type { Taint } from "../../api/scheduling/taints.ts";
import { taintNodeNotReady, taintNodeUnreachable } from "../../api/scheduling/taints.ts";

/** Event sources (`source.component`). */
export const nodeLifecycleControllerName = "node-controller";
export const taintEvictionControllerName = "taint-eviction-controller";
export const podGcControllerName = "pod-garbage-collector";

/** The taints the controller puts on a node whose Ready condition is not True (NoExecute: evict). */
export const unreachableNoExecuteTaint: Readonly<Taint> = Object.freeze({
  key: taintNodeUnreachable,
  effect: "NoExecute",
});
export const notReadyNoExecuteTaint: Readonly<Taint> = Object.freeze({ key: taintNodeNotReady, effect: "NoExecute" });

/** The node conditions the controller sets to Unknown when the kubelet falls silent (NodeNetworkUnavailable is not its). */
export const conditionsSetUnknown = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"] as const;
export const reasonNodeStatusUnknown = "NodeStatusUnknown";
export const messageNodeStatusUnknown = "Kubelet stopped posting node status.";
export const reasonNodeStatusNeverUpdated = "NodeStatusNeverUpdated";
export const messageNodeStatusNeverUpdated = "Kubelet never posted node status.";

// Events.
export const reasonRegisteredNode = "RegisteredNode";
export const reasonRemovingNode = "RemovingNode";
/** Both the node's status-change event and the Warning on each of its pods. */
export const reasonNodeNotReady = "NodeNotReady";
export const messagePodNodeNotReady = "Node is not ready";
export const reasonTaintManagerEviction = "TaintManagerEviction";

// The DisruptionTarget condition written before a pod is deleted.
export const conditionDisruptionTarget = "DisruptionTarget";
export const reasonDeletionByTaintManager = "DeletionByTaintManager";
export const messageDeletionByTaintManager = "Taint manager: deleting due to NoExecute taint";
export const reasonDeletionByPodGc = "DeletionByPodGC";
export const messagePodGcNodeGone = "PodGC: node no longer exists";

/** The taint manager's attempts at one eviction before it gives up until the next taint change. */
export const evictionRetries = 5;
/** The pause between those attempts (deletePodHandler's 10 ms sleep). */
export const evictionRetrySleepMs = 10;
