/**
 * The node agent's own constants, each with its unit in its name and the Kubernetes source it comes
 * from. Timers that scenarios override (node status frequency, lease renewal, the terminated-pod
 * volume poll, the pod resync) live in `api/timers.ts`; these are the fixed ones.
 */

/**
 * The kubelet's agent name on its node: the processes it forks without a scope of their own carry it
 * (kubelet.service's cgroup), and a kubelet restart kills those and no other agent's.
 */
export const kubeletAgentName = "kubelet";

// Pod workers (pkg/kubelet/kubelet.go, pod_workers.go)

/** `backOffPeriod`: a pod sync that failed (e.g. volumes not mounted in time) is retried after this. */
export const podSyncErrorBackoffMs = 10_000;
/** `workerBackOffPeriodJitterFactor`: the retry waits up to this fraction longer, drawn from the Rng. */
export const podSyncErrorBackoffJitterFactor = 0.5;
/** `workerResyncIntervalJitterFactor`: the periodic resync (syncFrequency) is jittered the same way. */
export const podResyncJitterFactor = 0.5;
/** `housekeepingPeriod`: orphaned containers and pod directories are cleaned up this often. */
export const housekeepingPeriodMs = 2_000;

// Container restarts (pkg/kubelet/kubelet.go, flowcontrol.Backoff)

/** The first CrashLoopBackOff delay, doubling per restart (`backOffPeriod`). */
export const containerRestartBackoffInitialMs = 10_000;
/** `MaxContainerBackOff`: the longest wait before restarting a crashing container. */
export const containerRestartBackoffMaxMs = 300_000;
/** A container that ran this long without a restart starts again from the initial delay (2 × max). */
export const containerRestartBackoffResetMs = 2 * containerRestartBackoffMaxMs;
/** Exit code of a container killed by the kubelet (SIGKILL after the grace period, or a liveness kill). */
export const killedContainerExitCode = 137;
/** A simulated process ends at once on SIGTERM unless a stop delay is configured. */
export const defaultContainerStopDelayMs = 0;

// Probes (k8s.io/api defaults for v1.Probe)

export const probeDefaultPeriodSeconds = 10;
export const probeDefaultTimeoutSeconds = 1;
export const probeDefaultFailureThreshold = 3;
export const probeDefaultSuccessThreshold = 1;

// Node registration and status (kubelet_node_status.go, nodelease controller)

/** `JitterUntil(syncNodeStatus, nodeStatusUpdateFrequency, 0.04, …)`: each period is up to 4% longer. */
export const nodeStatusUpdateJitterFactor = 0.04;
/** `nodeStatusReportFrequency`: an unchanged status is still written this often. */
export const nodeStatusReportFrequencyMs = 5 * 60_000;
/** `nodeStatusUpdateRetry`: attempts of one status update before waiting for the next period. */
export const nodeStatusUpdateRetries = 5;
/** Node registration is retried from 100 ms, doubling up to 7 s, until it succeeds. */
export const nodeRegistrationRetryInitialMs = 100;
export const nodeRegistrationRetryMaxMs = 7_000;
/** A failed Lease renewal is retried from 200 ms, doubling up to 7 s (nodelease `maxBackoff`). */
export const leaseRetryInitialMs = 200;
export const leaseRetryMaxMs = 7_000;

// CSI plugin registration (pkg/kubelet/pluginmanager)

/**
 * How often `<root>/plugins_registry/` is scanned for registration sockets. Kubernetes reacts to
 * inotify events; one directory read per node per second is the cheap equivalent.
 */
export const pluginsRegistryPollMs = 1_000;

// Node object (pkg/kubelet/kubelet_node_status.go, well-known labels and annotations)

export const hostnameLabel = "kubernetes.io/hostname";
export const osLabel = "kubernetes.io/os";
export const archLabel = "kubernetes.io/arch";
export const betaOsLabel = "beta.kubernetes.io/os";
export const betaArchLabel = "beta.kubernetes.io/arch";
export const zoneLabel = "topology.kubernetes.io/zone";
export const regionLabel = "topology.kubernetes.io/region";
/** Tells the attach/detach controller that it, not this kubelet, attaches and detaches volumes. */
export const controllerManagedAttachDetachAnnotation = "volumes.kubernetes.io/controller-managed-attach-detach";
export const nodeOs = "linux";
export const nodeArch = "amd64";
/** The version this agent reports in node.status.nodeInfo. */
export const kubeletVersion = "v1.31.0-kvol";
export const containerRuntimeVersion = "kvol-sim://1.0";
/** What a simulated node reports as its kernel and OS image in node.status.nodeInfo. */
export const simulatedKernelVersion = "6.1.0-sim";
export const simulatedOsImage = "kvol simulated node";
export const kubeletPort = 10250;
/** What a simulated node offers when the caller gives no capacity. */
export const defaultNodeCapacity: Readonly<Record<string, string>> = {
  cpu: "4",
  memory: "8Gi",
  pods: "110",
  "ephemeral-storage": "100Gi",
};

/** The reason and message of a healthy node's conditions, as kubelet writes them. */
export const readyConditionReason = "KubeletReady";
export const readyConditionMessage = "kubelet is posting ready status";

// Container runtime (simulated)

/** Prefix of container IDs in container statuses. */
export const containerIdScheme = "containerd";
/** Hex digits in a container ID. */
export const containerIdHexDigits = 64;
