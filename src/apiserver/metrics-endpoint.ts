/**
 * `GET /metrics`: the control plane's Prometheus metrics in the text format, what
 * `kubectl get --raw /metrics` prints. Kubernetes grants the non-resource path `/metrics` to
 * cluster administrators (and monitoring roles); a node agent is refused, as kube-apiserver
 * refuses system:nodes.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "../api/errors.ts";
import { isAdmin } from "./auth/user-info.ts";
import type { ServerContext } from "./request-context.ts";

export const metricsPath = "/metrics";

export async function serveMetrics(
  server: ServerContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (server.user !== undefined && !isAdmin(server.user)) {
    throw new ApiError("Forbidden", `forbidden: User "${server.user.name}" cannot get path "${metricsPath}"`);
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    throw new ApiError(
      "MethodNotAllowed",
      `the server does not allow this method on the requested resource (${request.method} ${metricsPath})`,
    );
  }
  const metrics = server.metrics;
  if (metrics === undefined) throw new ApiError("NotFound", "the server could not find the requested resource");
  const text = await metrics.exposition();
  response.writeHead(200, { "Content-Type": metrics.contentType });
  response.end(request.method === "HEAD" ? undefined : text);
}
