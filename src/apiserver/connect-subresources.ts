/**
 * `pods/<name>/exec`, `attach` and `portforward`: kube-apiserver upgrades these to a stream with
 * the kubelet, which runs a command in (or attaches to, or forwards a port of) a real container.
 * kvol's containers are simulated: no process runs in them, so there is nothing to stream to.
 * These answer a Status that says so in words kubectl prints as they are (it reads the Status of a
 * refused upgrade, websocket or SPDY), after the checks kube-apiserver makes first: the pod exists
 * and the container named is one of its containers.
 */
import { ApiError, badRequest } from "../api/errors.ts";
import type { KObject, Pod } from "../api/objects.ts";
import type { ResourceRequest } from "./request-context.ts";

const actionWords: Readonly<Record<string, string>> = {
  exec: "run a command in",
  attach: "attach to",
  portforward: "forward a port to",
};

/** The container the request names: the `container` parameter, or the only container of the pod. */
function checkContainer(pod: Pod, query: URLSearchParams): string {
  const name = pod.metadata?.name ?? "";
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => c.name);
  const requested = query.get("container") ?? "";
  if (requested === "") return pod.spec?.containers?.[0]?.name ?? "";
  if (!containers.includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

export function simulatedContainerMessage(subresource: string, pod: string, container: string): string {
  const action = actionWords[subresource] ?? subresource;
  const target = container === "" ? `pod "${pod}"` : `container "${container}" of pod "${pod}"`;
  return (
    `kvol cannot ${action} ${target}: kvol's containers are simulated and run no processes, ` +
    "so exec, attach and port-forward are not available (they will be once kvol nodes run real containers)"
  );
}

export async function handleConnect(context: ResourceRequest): Promise<void> {
  const { server, path, query } = context;
  const pod = await server.store.get<Pod & KObject>(path.type, path.namespace, path.name);
  const container = path.subresource === "portforward" ? "" : checkContainer(pod, query);
  throw new ApiError("BadRequest", simulatedContainerMessage(path.subresource ?? "", path.name, container));
}
