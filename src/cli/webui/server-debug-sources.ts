/**
 * Where an API server finds the components' debug states for the web UI's feed: the same places
 * its debug endpoints read (debug-endpoints.ts): the controllers of its own process, each node's
 * kubelet in its own process or, for a node joined from elsewhere (`kvol node`), over the
 * kubelet's port with the node's own token, as the node proxy reaches it.
 */
import { request as httpsRequest } from "node:https";
import {
  attachDetachControllerDebugName,
  kubeletVolumeManagerDebugPath,
  persistentVolumeControllerDebugName,
} from "../../api/debug/debug-state.ts";
import { ApiError } from "../../api/errors.ts";
import type { KObject } from "../../api/objects.ts";
import { resourceForKind } from "../../api/resources.ts";
import { remoteKubeletOf } from "../../apiserver/kubelet-proxy.ts";
import type { ServerContext } from "../../apiserver/request-context.ts";
import { type ComponentName, type DebugSources, kubeletComponent, kubeletComponentPrefix } from "./debug-state-feed.ts";

/** The most of a kubelet's answer read (a volume manager's state of a few thousand volumes fits). */
const maxKubeletAnswerBytes = 64 * 1024 * 1024;

const controllerNames: readonly ComponentName[] = [
  attachDetachControllerDebugName,
  persistentVolumeControllerDebugName,
];

function nodesType() {
  const type = resourceForKind("Node");
  if (type === undefined) throw new Error("the Node resource is not registered");
  return type;
}

/** GET `path` of a remote kubelet as JSON (its certificate is self-signed and not verified, as the node proxy does). */
async function remoteKubeletJson(server: ServerContext, nodeName: string, path: string): Promise<object> {
  const kubelet = await remoteKubeletOf(server, nodeName);
  const host = kubelet.host.includes(":") ? `[${kubelet.host}]` : kubelet.host;
  const url = `https://${host}:${kubelet.port}${path}`;
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(url, {
      method: "GET",
      headers: { Authorization: `Bearer ${kubelet.token}` },
      rejectUnauthorized: false,
    });
    outgoing.on("error", (error) => reject(new ApiError("InternalError", `Get "${url}": ${error.message}`)));
    outgoing.on("response", (answer) => {
      let text = "";
      answer.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
        if (text.length > maxKubeletAnswerBytes) outgoing.destroy(new Error("the answer is too large"));
      });
      answer.on("error", (error) => reject(new ApiError("InternalError", `Get "${url}": ${error.message}`)));
      answer.on("end", () => {
        if (answer.statusCode !== 200) {
          reject(new ApiError("InternalError", text.trim() || `the kubelet answered ${answer.statusCode}`));
          return;
        }
        try {
          resolve(JSON.parse(text) as object);
        } catch (error) {
          reject(new ApiError("InternalError", `the kubelet's answer is not JSON: ${String(error)}`));
        }
      });
    });
    outgoing.end();
  });
}

export function serverDebugSources(server: ServerContext): DebugSources {
  return {
    async components() {
      const nodes = await server.store.list<KObject>(nodesType(), {});
      const names = nodes.items.map((node) => node.metadata?.name ?? "").filter((name) => name !== "");
      return [...controllerNames, ...names.sort().map(kubeletComponent)];
    },
    async read(component) {
      if (component.startsWith(kubeletComponentPrefix)) {
        const nodeName = component.slice(kubeletComponentPrefix.length);
        const local = server.kubelets?.kubeletOf(nodeName);
        if (local?.debugState !== undefined) return local.debugState(kubeletVolumeManagerDebugPath);
        return remoteKubeletJson(server, nodeName, kubeletVolumeManagerDebugPath);
      }
      const notRunning = server.controllerStates?.notRunningReason?.();
      if (notRunning !== undefined) throw new ApiError("ServiceUnavailable", notRunning);
      const state = server.controllerStates?.stateOf(component);
      if (state === undefined)
        throw new ApiError("NotFound", `no controller "${component}" shows its state on this server`);
      return state;
    },
  };
}
