/**
 * `pods/<name>/exec`, `attach` and `portforward`: kube-apiserver checks the pod and the container
 * (streamLocation: the container named, or the pod's only one; the pod bound to a node), then
 * passes the upgrade on to the node's kubelet, which runs the command in (or attaches to) the
 * container and streams it (kubelet-proxy.ts). A node joined with `kvol node` serves this; the
 * nodes `kvol up` simulates in its own process run no processes, and port-forward is not served:
 * those answer a Status that says so in words kubectl prints as they are.
 */
import { ApiError, badRequest } from "../api/errors.ts";
import type { KObject, Pod } from "../api/objects.ts";
import { proxyKubeletUpgrade, remoteKubeletOf } from "./kubelet-proxy.ts";
import { containerOf } from "./pod-log-handler.ts";
import type { ResourceRequest } from "./request-context.ts";
import { takeUpgrade } from "./upgrade-requests.ts";

const actionWords: Readonly<Record<string, string>> = {
  exec: "run a command in",
  attach: "attach to",
  portforward: "forward a port to",
};

function simulatedContainerMessage(subresource: string, pod: string, container: string): string {
  const action = actionWords[subresource] ?? subresource;
  const target = container === "" ? `pod "${pod}"` : `container "${container}" of pod "${pod}"`;
  return (
    `kvol cannot ${action} ${target}: the nodes kvol up simulates in its own process run no processes, ` +
    "so exec, attach and port-forward are not available there (nodes joined with `kvol node` serve exec and attach)"
  );
}

function flag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  return value === "true" || value === "1";
}

/** The kubelet's query for a PodExecOptions or PodAttachOptions, as kube-apiserver's streamParams builds it. */
function kubeletStreamQuery(query: URLSearchParams): URLSearchParams {
  const params = new URLSearchParams();
  for (const command of query.getAll("command")) params.append("command", command);
  if (flag(query, "stdin")) params.set("input", "1");
  if (flag(query, "stdout")) params.set("output", "1");
  if (flag(query, "stderr")) params.set("error", "1");
  if (flag(query, "tty")) params.set("tty", "1");
  return params;
}

export async function handleConnect(context: ResourceRequest): Promise<void> {
  const { server, path, query, request, response } = context;
  const pod = (await server.store.get<KObject>(path.type, path.namespace, path.name)) as Pod;
  const subresource = path.subresource ?? "";
  if (subresource === "portforward")
    throw new ApiError("BadRequest", simulatedContainerMessage(subresource, path.name, ""));
  const container = containerOf(pod, query.get("container") ?? "");
  const nodeName = pod.spec?.nodeName ?? "";
  if (nodeName === "") throw badRequest(`pod ${path.name} does not have a host assigned`);
  if (server.kubelets?.kubeletOf(nodeName) !== undefined) {
    throw new ApiError("BadRequest", simulatedContainerMessage(subresource, path.name, container));
  }
  const kubelet = await remoteKubeletOf(server, nodeName);
  const upgrade = takeUpgrade(request, response);
  if (upgrade === undefined) throw badRequest("Upgrade request required");
  const segments = [subresource, path.namespace, path.name, container].map(encodeURIComponent).join("/");
  await proxyKubeletUpgrade(kubelet, `/${segments}?${kubeletStreamQuery(query)}`, request, upgrade);
}
