/**
 * kube-apiserver's `apiserver_request_total`: every request counted once it is answered, by verb
 * (Kubernetes' upper-case request verbs: GET, LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE,
 * DELETECOLLECTION, CONNECT), dry_run, group, version, resource, subresource, scope (resource,
 * namespace, cluster; empty outside the resource API), component ("apiserver") and HTTP code.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Counter } from "prom-client";
import type { Metrics } from "../runtime/metrics.ts";
import { isWatchRequest } from "./query-options.ts";
import { parseResourcePath, pathSegments, splitGroupVersion } from "./request-path.ts";

export function requestCounter(metrics: Metrics): Counter {
  return metrics.counter({
    name: "apiserver_request_total",
    help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
    labelNames: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"],
  });
}

const connectSubresources = new Set(["exec", "attach", "portforward", "proxy"]);

function resourceVerb(method: string, request: IncomingMessage, url: URL, named: boolean, subresource: string): string {
  if (connectSubresources.has(subresource)) return "CONNECT";
  if (method === "GET" || method === "HEAD") {
    if (isWatchRequest(url.searchParams)) return "WATCH";
    return named ? "GET" : "LIST";
  }
  if (method === "PATCH" && request.headers["content-type"]?.startsWith("application/apply-patch")) return "APPLY";
  if (method === "DELETE" && !named) return "DELETECOLLECTION";
  return method;
}

/** The labels of one answered request. */
export function requestLabels(request: IncomingMessage, statusCode: number): Record<string, string> {
  const method = (request.method ?? "GET").toUpperCase();
  const url = new URL(request.url ?? "/", "http://apiserver");
  const segments = pathSegments(url.pathname);
  const split = splitGroupVersion(segments);
  const path = split === undefined ? undefined : parseResourcePath(segments);
  const dryRun = url.searchParams.getAll("dryRun").join(",");
  const code = String(statusCode);
  // In Kubernetes' order of the labels, which the exposition keeps.
  if (path === undefined || split === undefined) {
    const none = { group: "", version: "", resource: "", subresource: "", scope: "" };
    return { verb: method, dry_run: dryRun, ...none, component: "apiserver", code };
  }
  const named = path.name !== "";
  const subresource = path.subresource ?? "";
  return {
    verb: resourceVerb(method, request, url, named, subresource),
    dry_run: dryRun,
    group: split.gv.group,
    version: split.gv.version,
    resource: path.type.plural,
    subresource,
    scope: named ? "resource" : path.namespace !== "" ? "namespace" : "cluster",
    component: "apiserver",
    code,
  };
}

/** Counts `request` when its answer has been sent (a watch: when it ends). */
export function countRequest(counter: Counter, request: IncomingMessage, response: ServerResponse): void {
  response.once("close", () => counter.inc(requestLabels(request, response.statusCode)));
}
