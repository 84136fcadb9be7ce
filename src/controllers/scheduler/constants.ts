/**
 * The scheduler's names, keys and messages, word for word as kube-scheduler writes them, and its
 * size constants. Timers (backoff, flush periods, bind timeout) live in src/api/timers.ts.
 */

/** The scheduler's profile name: pods with this `spec.schedulerName` (or none) are ours; also the events' source. */
export const defaultSchedulerName = "default-scheduler";

// Annotations the volume binding step reads and writes (component-helpers storage/volume).
export const annSelectedNode = "volume.kubernetes.io/selected-node";
export const annBindCompleted = "pv.kubernetes.io/bind-completed";
export const annBoundByController = "pv.kubernetes.io/bound-by-controller";
/** A StorageClass provisioner that cannot provision (local volumes). */
export const notSupportedProvisioner = "kubernetes.io/no-provisioner";

// Event reasons.
export const reasonScheduled = "Scheduled";
export const reasonFailedScheduling = "FailedScheduling";

// PodScheduled=False condition reasons (v1.PodReasonUnschedulable, v1.PodReasonSchedulerError).
export const podReasonUnschedulable = "Unschedulable";
export const podReasonSchedulerError = "SchedulerError";

// Filter verdicts (each plugin's ErrReason…).
export const errReasonUnschedulable = "node(s) were unschedulable";
export const errReasonNodeAffinity = "node(s) didn't match Pod's node affinity/selector";
export const errReasonVolumeNodeConflict = "node(s) had volume node affinity conflict";
export const errReasonVolumeBindConflict = "node(s) didn't find available persistent volumes to bind";
export const errReasonNotEnoughSpace = "node(s) did not have enough free storage";
/** NodeVolumeLimits: a CSI driver's volumes on the node would go over its CSINode allocatable count. */
export const errReasonMaxVolumeCountExceeded = "node(s) exceed max volume count";
export const errReasonPvNotExist = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
export const errUnboundImmediateClaims = "pod has unbound immediate PersistentVolumeClaims";
/** ErrNoNodesAvailable: what a pod is told when the cluster has no nodes at all. */
export const errNoNodesAvailable = "no nodes available to schedule pods";

/** `node(s) had untolerated taint {key: value}` (TaintToleration's reason). */
export function untoleratedTaintReason(key: string, value: string | undefined): string {
  return `node(s) had untolerated taint {${key}: ${value ?? ""}}`;
}

// numFeasibleNodesToFind: how many feasible nodes to look for before scoring.
/** Below this many nodes every node is evaluated; above it, at least this many feasible nodes are sought. */
export const minFeasibleNodesToFind = 100;
/** The adaptive percentage never drops below this. */
export const minFeasibleNodesPercentageToFind = 5;
/** The adaptive percentage starts here and falls by one per `adaptivePercentageNodesPerPoint` nodes. */
export const adaptivePercentageBase = 50;
export const adaptivePercentageNodesPerPoint = 125;
