/**
 * The kubelet's side of `kubectl logs` (its `/containerLogs/<ns>/<pod>/<container>` endpoint):
 * the log of a container's current or previous instance, read from the node's log file, with
 * Kubernetes' refusals word for word when there is none — a container still waiting to start, or
 * no previous instance to show.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { type LogEntry, parseCriLog } from "./container-log.ts";
import type { KubeletContainerRuntime } from "./container-runtime.ts";

/** What the reader needs of a runtime: its container instances and where their log files are read. */
export type LogReadableRuntime = Pick<KubeletContainerRuntime, "current" | "previous"> & {
  readonly logs?: { flushed(): Promise<void>; read(path: string): Promise<string> } | undefined;
};

/** A log request the kubelet refuses (the API server answers it as a 400 with this text). */
export class ContainerLogUnavailable extends Error {}

export interface ContainerLog {
  entries: LogEntry[];
  /** The instance read is still running (a follower keeps reading). */
  running: boolean;
}

function waitingReason(pod: Pod, container: string): string {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const status = statuses.find((candidate) => candidate.name === container);
  return status?.state?.waiting?.reason ?? "ContainerCreating";
}

export async function readContainerLog(
  runtime: LogReadableRuntime,
  pod: Pod,
  container: string,
  previous: boolean,
): Promise<ContainerLog> {
  const uid = pod.metadata?.uid ?? "";
  const podName = pod.metadata?.name ?? "";
  const instance = previous ? runtime.previous(uid, container) : runtime.current(uid, container);
  if (instance === undefined) {
    if (previous)
      throw new ContainerLogUnavailable(`previous terminated container "${container}" in pod "${podName}" not found`);
    throw new ContainerLogUnavailable(
      `container "${container}" in pod "${podName}" is waiting to start: ${waitingReason(pod, container)}`,
    );
  }
  if (runtime.logs === undefined) return { entries: [], running: instance.state === "running" };
  await runtime.logs.flushed();
  const text = await runtime.logs.read(instance.logPath);
  return { entries: parseCriLog(text), running: instance.state === "running" };
}
