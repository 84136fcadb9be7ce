/**
 * What a request asks to do, in the terms authorizers decide on (kube-apiserver's RequestInfo):
 * a resource request has a verb (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`,
 * `deletecollection`), an API group, a resource, maybe a subresource, a namespace and a name; any
 * other path is a non-resource request whose verb is the HTTP method in lower case.
 * The path is read as written, served or not, so an unknown resource is refused or allowed
 * before it is found missing, as kube-apiserver does.
 */
import { isWatchRequest } from "../query-options.ts";
import { pathSegments, splitGroupVersion } from "../request-path.ts";

export interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export type RequestAttributes =
  | ({ resourceRequest: true; path: string } & ResourceAttributes)
  | { resourceRequest: false; path: string; verb: string };

/** Subresources of a namespace, which stay on the Namespace itself (`/namespaces/<ns>/status`). */
const namespaceSubresources = new Set(["status", "finalize"]);

const verbForMethod: Readonly<Record<string, string>> = {
  POST: "create",
  GET: "get",
  HEAD: "get",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** The name a list or watch narrows itself to with `fieldSelector=metadata.name=<name>`. */
function nameFromFieldSelector(query: URLSearchParams): string {
  for (const term of (query.get("fieldSelector") ?? "").split(",")) {
    const match = /^metadata\.name==?(.+)$/.exec(term.trim());
    if (match?.[1] !== undefined) return match[1];
  }
  return "";
}

function resourceVerb(method: string, name: string, query: URLSearchParams, watchPrefix: boolean): string {
  if (watchPrefix) return "watch";
  const verb = verbForMethod[method] ?? "";
  if (name !== "") return verb;
  if (verb === "get") return isWatchRequest(query) ? "watch" : "list";
  if (verb === "delete") return "deletecollection";
  return verb;
}

export function requestAttributes(method: string, url: URL): RequestAttributes {
  const path = url.pathname;
  const nonResource = { resourceRequest: false as const, path, verb: method.toLowerCase() };
  let split: ReturnType<typeof splitGroupVersion>;
  try {
    split = splitGroupVersion(pathSegments(path));
  } catch {
    // A path that does not decode names no resource: it is judged as a plain path.
    return nonResource;
  }
  if (split === undefined || split.rest.length === 0) return nonResource;
  let parts = split.rest;
  const watchPrefix = parts[0] === "watch";
  if (watchPrefix) parts = parts.slice(1);
  let namespace = "";
  if (parts[0] === "namespaces" && parts.length > 1) {
    namespace = parts[1] ?? "";
    if (parts.length > 2 && !namespaceSubresources.has(parts[2] ?? "")) parts = parts.slice(2);
  }
  const [resource = "", explicitName = "", subresource = ""] = parts;
  const name = explicitName === "" ? nameFromFieldSelector(url.searchParams) : explicitName;
  const verb = resourceVerb(method, explicitName, url.searchParams, watchPrefix);
  return { resourceRequest: true, path, verb, group: split.gv.group, resource, subresource, namespace, name };
}
