/**
 * Names, keys, messages and timers of kvol's node-fencing controller. Kubernetes has no such
 * controller (it waits for a human to add `node.kubernetes.io/out-of-service`); these are kvol's
 * own, kept under the `fencing.kvol.io/` prefix so they never collide with Kubernetes' names.
 */

/** Event source (`source.component`) and controller name. */
export const nodeFencingControllerName = "node-fencing-controller";

/** On a StorageClass: fence nodes holding volumes of this class after they have been silent this long (`30s`). */
export const fenceAfterAnnotation = "fencing.kvol.io/fence-after";
/** On a fenced Node: when it was fenced (RFC 3339). */
export const fencedAtAnnotation = "fencing.kvol.io/fenced-at";
/** On a fenced Node: the storage fenced, comma-separated fencer names, so unfencing lifts exactly those. */
export const fencedStorageAnnotation = "fencing.kvol.io/fenced-storage";

/** The Node condition the controller keeps: True while the node's storage access is fenced. */
export const conditionStorageFenced = "StorageFenced";

// Condition reasons and event reasons.
export const reasonNodeFenced = "NodeFenced";
export const reasonNodeUnfenced = "NodeUnfenced";
export const reasonFencingRefused = "FencingRefused";
export const reasonUnfenceWaiting = "UnfenceWaiting";

/** How often the controller looks at every node's heartbeats (the node lifecycle controller looks every 5 s). */
export const fencingPassPeriodMs = 1_000;

/** The shortest grace accepted: below two kubelet Lease renewals (10 s each) a live node would be fenced. */
export const fenceAfterMinimumMs = 10_000;

/**
 * An API server slower than this to answer the controller's own read explains late heartbeats by
 * itself: no node is fenced meanwhile (a kubelet merely slow to report is not a dead one).
 */
export const apiSlowThresholdMs = 1_000;
