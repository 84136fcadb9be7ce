/**
 * `GET pods/<name>/log` (`kubectl logs`): the API server checks the pod and the container as
 * kube-apiserver does, then asks the pod's kubelet for the container's log and answers it as
 * text: `container`, `previous`, `timestamps` (each line prefixed with its RFC 3339 time),
 * `tailLines`, `sinceSeconds`, `limitBytes`, and `follow`, which keeps the answer open and sends
 * new lines until the container stops or the client goes away.
 */
import { ApiError, badRequest } from "../api/errors.ts";
import type { KObject, Pod } from "../api/objects.ts";
import { formatRfc3339Micro } from "../runtime/clock.ts";
import { msPerSecond } from "../runtime/duration.ts";
import type { ContainerLogEntry } from "./kubelet-connection.ts";
import { proxyKubeletGet, remoteKubeletOf } from "./kubelet-proxy.ts";
import type { ResourceRequest } from "./request-context.ts";

/** How often a follower looks for new lines (the kubelet's log follower wakes on file changes; this polls). */
const logFollowPollMs = 250;

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

/** RFC 3339 with the fraction's trailing zeros dropped (Go's RFC3339Nano), as `--timestamps` prints it. */
function timestampOf(timeMs: number): string {
  const micro = formatRfc3339Micro(timeMs);
  const fraction = micro.slice(20, -1).replace(/0+$/, "");
  return `${micro.slice(0, 19)}${fraction === "" ? "" : `.${fraction}`}Z`;
}

function render(entries: readonly ContainerLogEntry[], timestamps: boolean): string {
  return entries.map((entry) => `${timestamps ? `${timestampOf(entry.timeMs)} ` : ""}${entry.text}\n`).join("");
}

function selected(entries: readonly ContainerLogEntry[], options: LogQuery, nowMs: number): ContainerLogEntry[] {
  const sinceSeconds = options.sinceSeconds;
  const since =
    sinceSeconds === undefined ? entries : entries.filter((e) => e.timeMs >= nowMs - sinceSeconds * msPerSecond);
  return options.tailLines === undefined ? [...since] : since.slice(Math.max(0, since.length - options.tailLines));
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
  const first = await kubelet.containerLog(pod, container, options.previous);
  const initial = selected(first.entries, options, server.clock.now());
  let budget = options.limitBytes ?? Number.POSITIVE_INFINITY;
  const send = (text: string): boolean => {
    const bytes = Buffer.from(text, "utf8");
    const part = bytes.subarray(0, Math.min(bytes.length, budget));
    budget -= part.length;
    if (part.length > 0) response.write(part);
    return budget > 0;
  };
  response.writeHead(200, { "Content-Type": "text/plain", "Transfer-Encoding": "chunked" });
  let more = send(render(initial, options.timestamps));
  let seen = first.entries.length;
  let running = first.running;
  let closed = false;
  request.on("close", () => {
    closed = true;
  });
  while (options.follow && !options.previous && more && running && !closed) {
    await server.clock.sleep(logFollowPollMs);
    if (closed) break;
    const next = await kubelet.containerLog(pod, container, false);
    more = send(render(next.entries.slice(seen), options.timestamps));
    seen = next.entries.length;
    running = next.running;
  }
  response.end();
}
