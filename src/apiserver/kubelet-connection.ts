/**
 * How the API server reaches a node's kubelet, as kube-apiserver reaches the kubelet's port for
 * `pods/log`: by node name. An in-process cluster hands the server its kubelets directly; a node
 * the server cannot reach has no entry, and its logs are refused with a message that says so.
 */
import type { Pod } from "../api/objects.ts";

export interface ContainerLogEntry {
  timeMs: number;
  stream: "stdout" | "stderr";
  text: string;
}

export interface ContainerLogAnswer {
  entries: ContainerLogEntry[];
  /** The container is still running: a follower keeps reading. */
  running: boolean;
}

export interface KubeletConnection {
  /** The log of the container's current or previous instance; throws a refusal the client should read. */
  containerLog(pod: Pod, container: string, previous: boolean): Promise<ContainerLogAnswer>;
  /** The kubelet's JSON at `path` (`/debug/volumemanager`); throws a NotFound ApiError for a path it does not serve. */
  debugState?(path: string): Promise<object>;
  /** The kubelet's `/metrics`: Prometheus' text format and its content type. */
  metrics?(): Promise<{ contentType: string; text: string }>;
}

export interface KubeletConnections {
  /** The kubelet of `nodeName`, or undefined when the server cannot reach it. */
  kubeletOf(nodeName: string): KubeletConnection | undefined;
}
