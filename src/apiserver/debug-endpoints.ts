/**
 * The components' hidden state, read-only, over the API (docs/why.md):
 *
 *   GET /api/v1/nodes/<node>/proxy/<path>     the node's kubelet at <path> (kube-apiserver's node
 *                                             proxy), e.g. `debug/volumemanager`, `metrics`; authorized as
 *                                             `get nodes/proxy`: administrators only
 *   GET /debug/controllers/<controller>       a controller's state (`attachdetach-controller`,
 *                                             `persistentvolume-controller`); a non-resource URL,
 *                                             authorized as the other non-resource paths: administrators
 *
 * A kubelet of the cluster's own process answers directly; a node joined from elsewhere through
 * its server (kubelet-proxy.ts), as `kubectl logs` does.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { controllerDebugPathPrefix, kubeletMetricsPath } from "../api/debug/debug-state.ts";
import { ApiError } from "../api/errors.ts";
import { resourceForKind } from "../api/resources.ts";
import { notAuthorized } from "./auth/forbidden.ts";
import { isAdmin } from "./auth/user-info.ts";
import { proxyKubeletGet, remoteKubeletOf } from "./kubelet-proxy.ts";
import type { ServerContext } from "./request-context.ts";
import { pathSegments } from "./request-path.ts";
import { sendJson } from "./responses.ts";

/** The controllers' states the server can read: those running in its own process. */
export interface ControllerStates {
  /** The named controller's state; undefined when no such controller runs here. */
  stateOf(name: string): object | undefined;
  /** Why no controller runs here (a server that does not hold the leader lease), if so. */
  notRunningReason?(): string | undefined;
}

/** `nodes/<name>/proxy/<rest>` of the core API: the node's name and the path on its kubelet. */
export function nodeProxyTarget(pathname: string): { nodeName: string; path: string } | undefined {
  const segments = pathSegments(pathname);
  const [api, version, nodes, nodeName, proxy] = segments;
  if (api !== "api" || version !== "v1" || nodes !== "nodes" || proxy !== "proxy" || nodeName === undefined)
    return undefined;
  return { nodeName, path: `/${segments.slice(5).map(encodeURIComponent).join("/")}` };
}

export function isControllerDebugPath(pathname: string): boolean {
  return pathname.startsWith(controllerDebugPathPrefix);
}

function nodesType() {
  const type = resourceForKind("Node");
  if (type === undefined) throw new Error("the Node resource is not registered");
  return type;
}

/** GET on the node's kubelet: only administrators may (`nodes/proxy`, which Kubernetes grants no node). */
export async function handleNodeProxy(
  server: ServerContext,
  target: { nodeName: string; path: string },
  url: URL,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const type = nodesType();
  const user = server.user;
  if (user !== undefined && !isAdmin(user)) {
    throw notAuthorized({
      user: user.name,
      verb: "get",
      type,
      subresource: "proxy",
      namespace: "",
      name: target.nodeName,
    });
  }
  if (request.method !== "GET") {
    throw new ApiError("MethodNotAllowed", `the node proxy serves GET only, not ${request.method}`);
  }
  await server.store.get(type, "", target.nodeName);
  const kubelet = server.kubelets?.kubeletOf(target.nodeName);
  if (kubelet !== undefined) {
    if (target.path === kubeletMetricsPath && kubelet.metrics !== undefined) {
      const { contentType, text } = await kubelet.metrics();
      response.writeHead(200, { "Content-Type": contentType });
      response.end(text);
      return;
    }
    if (kubelet.debugState === undefined)
      throw new ApiError("NotFound", "the server could not find the requested resource");
    sendJson(response, 200, await kubelet.debugState(target.path));
    return;
  }
  const remote = await remoteKubeletOf(server, target.nodeName);
  await proxyKubeletGet(remote, `${target.path}${url.search}`, request, response);
}

export function handleControllerDebug(server: ServerContext, pathname: string, response: ServerResponse): void {
  const user = server.user;
  if (user !== undefined && !isAdmin(user)) {
    throw new ApiError("Forbidden", `forbidden: User "${user.name}" cannot get path "${pathname}"`);
  }
  const name = pathname.slice(controllerDebugPathPrefix.length).replace(/\/$/, "");
  const notRunning = server.controllerStates?.notRunningReason?.();
  if (notRunning !== undefined) throw new ApiError("ServiceUnavailable", notRunning);
  const state = server.controllerStates?.stateOf(name);
  if (state === undefined) {
    throw new ApiError(
      "NotFound",
      `no controller "${name}" shows its state on this server (try attachdetach-controller or persistentvolume-controller)`,
    );
  }
  sendJson(response, 200, state);
}
