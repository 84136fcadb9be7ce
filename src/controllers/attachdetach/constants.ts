/**
 * Names, annotations and messages of the attach/detach controller, word for word as Kubernetes
 * writes them (spec §2, §6.2). Timers live in src/api/timers.ts (`adc*`, `csiTimeoutMs`).
 */

/** Event source (`source.component`) and logger component. */
export const attachDetachControllerName = "attachdetach-controller";

/** A node the controller attaches for; the kubelet sets it by default (spec §2.2). */
export const controllerManagedAttachAnnotation = "volumes.kubernetes.io/controller-managed-attach-detach";
/** Legacy: keep the volumes of terminated pods attached on this node. */
export const keepTerminatedPodVolumesAnnotation = "volumes.kubernetes.io/keep-terminated-pod-volumes";

export const multiAttachErrorPrefix = "Multi-Attach error";
export const multiAttachExclusivelyAttachedText =
  "Volume is already exclusively attached to one node and can't be attached to another";

/** Workers of the PVC queue: one, as Kubernetes runs. */
export const pvcWorkerCount = 1;
/**
 * The "are volumes still attached" sync is skipped when its period is under this
 * (`--attach-detach-reconcile-sync-period` < 1 s).
 */
export const minReconcileSyncPeriodMs = 1_000;
