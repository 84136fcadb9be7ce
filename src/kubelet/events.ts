/**
 * The events the node agent records, with Kubernetes' reasons (pkg/kubelet/events/event.go) and
 * message texts, word for word, so `kubectl describe` reads the same as on a real node.
 */

export const eventReason = {
  failedMount: "FailedMount",
  pulled: "Pulled",
  created: "Created",
  started: "Started",
  failed: "Failed",
  killing: "Killing",
  unhealthy: "Unhealthy",
  backOff: "BackOff",
  starting: "Starting",
  nodeReady: "NodeReady",
  registeredNode: "RegisteredNode",
  invalidEnvironmentVariableNames: "InvalidEnvironmentVariableNames",
} as const;

/** `Unable to attach or mount volumes: <error>` (kubelet.go syncPod). */
export function unableToAttachOrMountMessage(error: string): string {
  return `Unable to attach or mount volumes: ${error}`;
}

export function imagePresentMessage(image: string): string {
  return `Container image "${image}" already present on machine`;
}

export function createdContainerMessage(container: string): string {
  return `Created container ${container}`;
}

export function startedContainerMessage(container: string): string {
  return `Started container ${container}`;
}

export function stoppingContainerMessage(container: string): string {
  return `Stopping container ${container}`;
}

/** `<Liveness|Readiness|Startup> probe failed: <output>` (prober.go). */
export function probeFailedMessage(probeType: string, output: string): string {
  return `${probeType} probe failed: ${output}`;
}

/** The Killing message of a liveness restart (kuberuntime_manager.go computePodActions). */
export function failedLivenessMessage(container: string): string {
  return `Container ${container} failed liveness probe, will be restarted`;
}

export function backOffRestartingMessage(container: string, podName: string, namespace: string, uid: string): string {
  return `Back-off restarting failed container ${container} in pod ${podName}_${namespace}(${uid})`;
}

export function failedToStartMessage(error: string): string {
  return `Error: ${error}`;
}

export function nodeStatusMessage(nodeName: string, status: string): string {
  return `Node ${nodeName} status is now: ${status}`;
}

export const startingKubeletMessage = "Starting kubelet.";
