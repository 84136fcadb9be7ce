/**
 * The hidden state of the volume components, as JSON a user can read over the API (`kvol why`, or
 * `kubectl get --raw`): the kubelet's desired and actual state of the world and its operations
 * (`/api/v1/nodes/<node>/proxy/debug/volumemanager`), the attach/detach controller's states and
 * force-detach timers (`/debug/controllers/attachdetach-controller`), the PV controller's pending
 * claims (`/debug/controllers/persistentvolume-controller`). Times are RFC 3339 with microseconds
 * on the component's clock; durations are Go's (`2m2s`). Read-only: nothing here changes a component.
 */

export const debugStateApiVersion = "debug.kvol.io/v1";

/** The kubelet's path (on its own server; through the API server under `nodes/<name>/proxy`). */
export const kubeletVolumeManagerDebugPath = "/debug/volumemanager";
/** The kubelet's Prometheus metrics (on its own server; through the API server under `nodes/<name>/proxy`). */
export const kubeletMetricsPath = "/metrics";
/** The kubelet's Summary API (on its own server; through the API server under `nodes/<name>/proxy`). */
export const kubeletStatsSummaryPath = "/stats/summary";
/** The API server's path of a controller's state, by the controller's component name. */
export const controllerDebugPathPrefix = "/debug/controllers/";
export const attachDetachControllerDebugName = "attachdetach-controller";
export const persistentVolumeControllerDebugName = "persistentvolume-controller";

/** One operation of nested pending operations (or the PV controller's goroutine map): running, or failed and backing off. */
export interface OperationDebugState {
  /** The operation's name (`volume_mount`, `unmount_device`, `provision-ns/claim[uid]`, …). */
  operationName: string;
  volumeName: string;
  /** The pod's uid for per-pod operations; "" otherwise. */
  podName: string;
  nodeName: string;
  running: boolean;
  /** Present once it failed: the last error, when, and when the next attempt is permitted. */
  lastError?: string;
  lastErrorTime?: string;
  noRetriesPermittedUntil?: string;
  durationBeforeRetry?: string;
}

export interface KubeletDesiredPod {
  podUID: string;
  namespace: string;
  name: string;
  outerVolumeSpecName: string;
}

export interface KubeletDesiredVolume {
  volumeName: string;
  pluginIsAttachable: boolean;
  /** Listed in node.status.volumesInUse as written by this kubelet (attachable volumes mount only after). */
  reportedInUse: boolean;
  pods: KubeletDesiredPod[];
}

export interface KubeletMountedPod {
  podUID: string;
  outerVolumeSpecName: string;
  /** `VolumeMounted` or `VolumeMountUncertain`. */
  volumeMountState: string;
  remountRequired: boolean;
  /** Found on disk after a kubelet restart and not mounted again since. */
  reconstructed: boolean;
}

export interface KubeletActualVolume {
  volumeName: string;
  pluginName: string;
  /** `DeviceNotMounted`, `DeviceMountUncertain` or `DeviceGloballyMounted`. */
  deviceMountState: string;
  devicePath: string;
  deviceMountPath: string;
  pods: KubeletMountedPod[];
}

/** A mount the kubelet could not unmount because something holds it busy, and what holds it, as the node sees it. */
export interface MountHolderDebugState {
  mountPoint: string;
  /** The processes that keep it busy (`pid` and command line); empty when the node cannot name them. */
  processes: { pid: number; command: string }[];
}

export interface KubeletVolumeManagerDebugState {
  apiVersion: typeof debugStateApiVersion;
  kind: "KubeletVolumeManagerState";
  nodeName: string;
  time: string;
  desiredStateOfWorld: KubeletDesiredVolume[];
  actualStateOfWorld: KubeletActualVolume[];
  operations: OperationDebugState[];
  /** CSI drivers registered with this kubelet (plugin registration). */
  registeredCsiDrivers: string[];
  busyMounts: MountHolderDebugState[];
}

export interface AttachDetachDesiredVolume {
  nodeName: string;
  volumeName: string;
  multiAttachErrorReported: boolean;
  pods: { uid: string; namespace: string; name: string }[];
}

export interface AttachDetachActualVolume {
  volumeName: string;
  nodeName: string;
  /** `Attached` or `Uncertain`. */
  attachState: string;
  /** Listed in the node's status.volumesInUse: detached only once the node lets go, or by force. */
  mountedByNode: boolean;
  /** Wanted by no pod on the node any more: when that was first seen (the force-detach timer's start). */
  detachRequestedTime?: string;
  /** When maxWaitForUnmountDuration runs out: a node that is not Ready by then is force-detached. */
  forceDetachTime?: string;
}

export interface AttachDetachControllerDebugState {
  apiVersion: typeof debugStateApiVersion;
  kind: "AttachDetachControllerState";
  time: string;
  /** maxWaitForUnmountDuration (6m0s); absent when force detach on timeout is disabled. */
  maxWaitForUnmountDuration?: string;
  desiredStateOfWorld: AttachDetachDesiredVolume[];
  actualStateOfWorld: AttachDetachActualVolume[];
  operations: OperationDebugState[];
}

export interface PendingClaimDebugState {
  namespace: string;
  name: string;
  uid: string;
  storageClassName: string;
  volumeName: string;
  operations: OperationDebugState[];
}

export interface PersistentVolumeControllerDebugState {
  apiVersion: typeof debugStateApiVersion;
  kind: "PersistentVolumeControllerState";
  time: string;
  pendingClaims: PendingClaimDebugState[];
  operations: OperationDebugState[];
}
