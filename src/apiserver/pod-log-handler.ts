/**
 * `GET pods/<name>/log` (`kubectl logs`): the API server checks the pod and the container as
 * kube-apiserver does, then asks the pod's kubelet for the container's log and answers it as
 * text: `container`, `previous`, `timestamps` (each line prefixed with its RFC 3339 time),
 * `tailLines`, `sinceSeconds`, `limitBytes`, and `follow`, which keeps the answer open and sends
 * new lines until the container stops or the client goes away.
 */
import { ApiError, badRequest } from "../api/errors.ts";
import type { KObject, Pod } from "../api/objects.ts";
import { serveContainerLog } from "../kubelet/server/container-logs.ts";
import { proxyKubeletGet, remoteKubeletOf } from "./kubelet-proxy.ts";
import type { ResourceRequest } from "./request-context.ts";

interface LogQuery {
  container: string;
  previous: boolean;
  follow: boolean;
  timestamps: boolean;
  tailLines: number | undefined;
  sinceSeconds: number | undefined;
  limitBytes: number | undefined;
}

function flag(query: URLSearchParams, name: string): boolean {
  return query.get(name) === "true";
}

function count(query: URLSearchParams, name: string, minimum: number, podName: string): number | undefined {
  const text = query.get(name);
  if (text === null || text === "") return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum) {
    const qualifier = minimum === 0 ? "greater than or equal to 0" : "greater than 0";
    throw new ApiError(
      "Invalid",
      `PodLogOptions "${podName}" is invalid: ${name}: Invalid value: ${text}: must be ${qualifier}`,
    );
  }
  return value;
}

function logQuery(query: URLSearchParams, podName: string): LogQuery {
  return {
    container: query.get("container") ?? "",
    previous: flag(query, "previous"),
    follow: flag(query, "follow"),
    timestamps: flag(query, "timestamps"),
    tailLines: count(query, "tailLines", 0, podName),
    sinceSeconds: count(query, "sinceSeconds", 1, podName),
    limitBytes: count(query, "limitBytes", 1, podName),
  };
}

/** The container the request is about, checked as kube-apiserver's LogLocation checks it. */
export function containerOf(pod: Pod, requested: string): string {
  const name = pod.metadata?.name ?? "";
  const containers = (pod.spec?.containers ?? []).map((c) => c.name);
  const initContainers = (pod.spec?.initContainers ?? []).map((c) => c.name);
  if (requested !== "") {
    if (![...containers, ...initContainers].includes(requested)) {
      throw badRequest(`container ${requested} is not valid for pod ${name}`);
    }
    return requested;
  }
  if (containers.length === 1) return containers[0] ?? "";
  const initText = initContainers.length === 0 ? "" : ` or one of the init containers: [${initContainers.join(" ")}]`;
  throw badRequest(
    `a container name must be specified for pod ${name}, choose one of: [${containers.join(" ")}]${initText}`,
  );
}

/** The kubelet's query for these options, as kube-apiserver's LogLocation builds it. */
function kubeletLogQuery(options: LogQuery): URLSearchParams {
  const params = new URLSearchParams();
  if (options.follow) params.set("follow", "true");
  if (options.previous) params.set("previous", "true");
  if (options.timestamps) params.set("timestamps", "true");
  if (options.sinceSeconds !== undefined) params.set("sinceSeconds", String(options.sinceSeconds));
  if (options.tailLines !== undefined) params.set("tailLines", String(options.tailLines));
  if (options.limitBytes !== undefined) params.set("limitBytes", String(options.limitBytes));
  return params;
}

export async function handlePodLog(context: ResourceRequest): Promise<void> {
  const { server, path, query, request, response } = context;
  const options = logQuery(query, path.name);
  const pod = (await server.store.get<KObject>(path.type, path.namespace, path.name)) as Pod;
  const container = containerOf(pod, options.container);
  const nodeName = pod.spec?.nodeName ?? "";
  // A pod not yet on a node has no log; kube-apiserver answers it empty.
  if (nodeName === "") {
    response.writeHead(200, { "Content-Type": "text/plain" });
    response.end();
    return;
  }
  const kubelet = context.server.kubelets?.kubeletOf(nodeName);
  if (kubelet === undefined) {
    // A node elsewhere (`kvol node`): its kubelet's containerLogs, streamed back as it answers.
    const remote = await remoteKubeletOf(server, nodeName);
    const segments = [path.namespace, path.name, container].map(encodeURIComponent).join("/");
    await proxyKubeletGet(remote, `/containerLogs/${segments}?${kubeletLogQuery(options)}`, request, response);
    return;
  }
  await serveContainerLog(request, response, options, server.clock, (previous) =>
    kubelet.containerLog(pod, container, previous),
  );
}
