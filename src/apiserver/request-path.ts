/**
 * Turns a resource URL path into what it addresses, as kube-apiserver's RequestInfoResolver does:
 * `/api/v1/namespaces/<ns>/<plural>/<name>/<subresource>` and `/apis/<group>/<version>/…`.
 */
import { RESOURCES, type ResourceType } from "../api/resources.ts";
import { type ExtraSubresourceName, findExtraSubresource } from "./subresource-table.ts";

type Subresource = "status" | "binding" | ExtraSubresourceName;

export interface ResourcePath {
  type: ResourceType;
  /** "" when the URL names no namespace (cluster-scoped kinds, or a list across all namespaces). */
  namespace: string;
  /** "" for a collection. */
  name: string;
  subresource?: Subresource;
}

/** `v1` or `group/version` as it appears after `/api/` or `/apis/`. */
export type GroupVersionPath = { group: string; version: string };

/** The group/version prefix of a resource path and the segments after it, or undefined for other paths. */
export function splitGroupVersion(segments: readonly string[]): { gv: GroupVersionPath; rest: string[] } | undefined {
  if (segments[0] === "api" && segments.length >= 2) {
    return { gv: { group: "", version: segments[1] ?? "" }, rest: segments.slice(2) };
  }
  if (segments[0] === "apis" && segments.length >= 3) {
    return { gv: { group: segments[1] ?? "", version: segments[2] ?? "" }, rest: segments.slice(3) };
  }
  return undefined;
}

export function pathSegments(pathname: string): string[] {
  return pathname
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => decodeURIComponent(segment));
}

function findResource(gv: GroupVersionPath, plural: string): ResourceType | undefined {
  return RESOURCES.find((r) => r.group === gv.group && r.version === gv.version && r.plural === plural);
}

function asSubresource(type: ResourceType, segment: string | undefined): Subresource | undefined | null {
  if (segment === undefined) return undefined;
  if (segment === "status" && type.hasStatus) return "status";
  if (segment === "binding" && type.kind === "Pod") return "binding";
  return findExtraSubresource(type, segment)?.name ?? null;
}

function parseScoped(gv: GroupVersionPath, namespace: string, rest: readonly string[]): ResourcePath | undefined {
  const [plural, name, subresourceSegment, ...extra] = rest;
  if (plural === undefined || extra.length > 0) return undefined;
  const type = findResource(gv, plural);
  if (type === undefined || (namespace !== "" && !type.namespaced)) return undefined;
  const subresource = asSubresource(type, subresourceSegment);
  if (subresource === null) return undefined;
  return { type, namespace, name: name ?? "", ...(subresource === undefined ? {} : { subresource }) };
}

/** What a resource URL addresses, or undefined when it names no served resource (a 404). */
export function parseResourcePath(segments: readonly string[]): ResourcePath | undefined {
  const split = splitGroupVersion(segments);
  if (split === undefined) return undefined;
  const { gv, rest } = split;
  // `/namespaces/<ns>/<plural>…` scopes a namespaced resource; otherwise `namespaces` is the
  // Namespace kind itself (`/namespaces/<name>/status`).
  if (rest[0] === "namespaces" && rest.length >= 3) {
    const scoped = parseScoped(gv, rest[1] ?? "", rest.slice(2));
    if (scoped !== undefined) return scoped;
  }
  return parseScoped(gv, "", rest);
}
