/**
 * Routes one request: health and discovery paths, then resource paths by HTTP method. Anything
 * else is a 404 Status; a method a path does not serve is a 405 Status.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "../api/errors.ts";
import { handleConnect } from "./connect-subresources.ts";
import { handleControllerDebug, handleNodeProxy, isControllerDebugPath, nodeProxyTarget } from "./debug-endpoints.ts";
import { handleDelete } from "./delete-handler.ts";
import { apiGroup, apiGroupList, apiResourceList, coreApiVersions, versionInfo } from "./discovery.ts";
import { serveDiscoveryDocument } from "./discovery-documents.ts";
import { handleEviction } from "./eviction-handler.ts";
import { metricsPath, serveMetrics } from "./metrics-endpoint.ts";
import { handlePatch } from "./patch-handler.ts";
import { handlePodLog } from "./pod-log-handler.ts";
import { isWatchRequest } from "./query-options.ts";
import { handleGet, handleList } from "./read-handlers.ts";
import type { ResourceRequest, ServerContext } from "./request-context.ts";
import { parseResourcePath, pathSegments, splitGroupVersion } from "./request-path.ts";
import { sendJson } from "./responses.ts";
import { handleScale } from "./scale-subresource.ts";
import { handleSelfReview } from "./self-review-handlers.ts";
import { reviewResourceAt } from "./self-review-paths.ts";
import { handleTokenRequest } from "./token-request-handler.ts";
import { handleWatch } from "./watch-stream.ts";
import { handleBinding, handleCreate, handleUpdate } from "./write-handlers.ts";

type Handler = (context: ResourceRequest) => Promise<void>;

const healthPaths = new Set(["/healthz", "/readyz", "/livez"]);

/** kube-apiserver's answer for a path it serves nothing at (an unknown group, version or resource). */
function notFoundPath(): ApiError {
  return new ApiError("NotFound", "the server could not find the requested resource");
}

function methodNotAllowed(method: string, pathname: string): ApiError {
  return new ApiError(
    "MethodNotAllowed",
    `the server does not allow this method on the requested resource (${method} ${pathname})`,
  );
}

/** The discovery document at this path, or undefined when the path is not a discovery path. */
function discoveryDocument(pathname: string): unknown {
  if (pathname === "/version") return versionInfo();
  if (pathname === "/api") return coreApiVersions();
  if (pathname === "/apis") return apiGroupList();
  const segments = pathSegments(pathname);
  if (segments[0] === "apis" && segments.length === 2) return apiGroup(segments[1] ?? "");
  const split = splitGroupVersion(segments);
  if (split !== undefined && split.rest.length === 0) return apiResourceList(split.gv);
  return undefined;
}

function collectionHandler(method: string, query: URLSearchParams): Handler | undefined {
  if (method === "GET") return isWatchRequest(query) ? handleWatch : handleList;
  if (method === "POST") return handleCreate;
  return undefined;
}

/** Handlers of the subresources that are not the object itself, by subresource and method. */
const subresourceHandlers: Readonly<Record<string, Readonly<Record<string, Handler>>>> = {
  binding: { POST: handleBinding },
  eviction: { POST: handleEviction },
  finalize: { PUT: handleUpdate },
  scale: { GET: handleScale, PUT: handleScale, PATCH: handleScale },
  log: { GET: handlePodLog },
  token: { POST: handleTokenRequest },
  exec: { GET: handleConnect, POST: handleConnect },
  attach: { GET: handleConnect, POST: handleConnect },
  portforward: { GET: handleConnect, POST: handleConnect },
};

function objectHandler(method: string, subresource: string | undefined): Handler | undefined {
  const special = subresource === undefined ? undefined : subresourceHandlers[subresource];
  if (special !== undefined) return special[method];
  switch (method) {
    case "GET":
      return handleGet;
    case "PUT":
      return handleUpdate;
    case "PATCH":
      return handlePatch;
    case "DELETE":
      return subresource === undefined ? handleDelete : undefined;
    default:
      return undefined;
  }
}

/** A watch of one object is a watch of its collection narrowed to its name, as Kubernetes serves it. */
function narrowWatchToName(query: URLSearchParams, name: string): URLSearchParams {
  const narrowed = new URLSearchParams(query);
  const byName = `metadata.name=${name}`;
  const existing = query.get("fieldSelector");
  narrowed.set("fieldSelector", existing ? `${existing},${byName}` : byName);
  return narrowed;
}

async function routeResource(
  server: ServerContext,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const method = request.method ?? "GET";
  const path = parseResourcePath(pathSegments(url.pathname));
  if (path === undefined) throw notFoundPath();
  const query = url.searchParams;
  const watchesOneObject = path.name !== "" && path.subresource === undefined && isWatchRequest(query);
  if (method === "GET" && watchesOneObject) {
    const narrowed = narrowWatchToName(query, path.name);
    return handleWatch({ server, path: { ...path, name: "" }, query: narrowed, request, response });
  }
  const handler =
    path.name === ""
      ? path.subresource === undefined
        ? collectionHandler(method, query)
        : undefined
      : objectHandler(method, path.subresource);
  if (handler === undefined) throw methodNotAllowed(method, url.pathname);
  await handler({ server, path, query, request, response });
}

export async function route(server: ServerContext, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://apiserver");
  if (healthPaths.has(url.pathname)) {
    response.writeHead(200, { "Content-Type": "text/plain" });
    response.end("ok");
    return;
  }
  if (url.pathname === metricsPath) return serveMetrics(server, request, response);
  if (serveDiscoveryDocument(request, response, url)) return;
  const document = discoveryDocument(url.pathname);
  if (document !== undefined) {
    sendJson(response, 200, document);
    return;
  }
  if (isControllerDebugPath(url.pathname)) return handleControllerDebug(server, url.pathname, response);
  const proxied = nodeProxyTarget(url.pathname);
  if (proxied !== undefined) return handleNodeProxy(server, proxied, url, request, response);
  const review = reviewResourceAt(url.pathname);
  if (review !== undefined) return handleSelfReview(review, server, request, response);
  await routeResource(server, request, response, url);
}
