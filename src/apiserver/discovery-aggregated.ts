/**
 * Aggregated discovery (apidiscovery.k8s.io v2 and v2beta1): `/api` and `/apis` answer with every
 * group, version and resource in one document when the client asks for it in `Accept`, as
 * kubectl 1.30+ does, so one request replaces a request per group/version.
 */
import { RESOURCES, type ResourceType } from "../api/resources.ts";
import { bindingVerbs, categoriesOf, namedGroups, objectVerbs, reviewsIn, statusVerbs } from "./discovery.ts";
import { reviewVerbs } from "./self-review-paths.ts";
import { extraSubresourcesOf } from "./subresource-table.ts";

type AggregatedDiscoveryVersion = "v2" | "v2beta1";

const discoveryGroup = "apidiscovery.k8s.io";
const discoveryListKind = "APIGroupDiscoveryList";

/** The Content-Type of an aggregated answer; clients read it to know which form they got. */
export function aggregatedContentType(version: AggregatedDiscoveryVersion): string {
  return `application/json;g=${discoveryGroup};v=${version};as=${discoveryListKind}`;
}

function mediaParameters(range: string): { type: string; params: Map<string, string> } {
  const [type = "", ...rest] = range.split(";").map((part) => part.trim());
  const params = new Map<string, string>();
  for (const part of rest) {
    const equals = part.indexOf("=");
    if (equals > 0) params.set(part.slice(0, equals).trim(), part.slice(equals + 1).trim());
  }
  return { type: type.toLowerCase(), params };
}

/**
 * The aggregated form the client asks for, or undefined when the first form it accepts is the
 * plain one. Clients list media ranges in order of preference.
 */
export function negotiateAggregatedDiscovery(accept: string | undefined): AggregatedDiscoveryVersion | undefined {
  for (const range of (accept ?? "").split(",")) {
    const { type, params } = mediaParameters(range);
    if (type === "application/json" && params.get("g") === discoveryGroup && params.get("as") === discoveryListKind) {
      const version = params.get("v");
      if (version === "v2" || version === "v2beta1") return version;
      continue;
    }
    if (type === "application/json" || type === "*/*" || type === "application/*") return undefined;
  }
  return undefined;
}

function subresources(type: ResourceType): Record<string, unknown>[] {
  const responseKind = { group: type.group, version: type.version, kind: type.kind };
  const found: Record<string, unknown>[] = [];
  if (type.hasStatus) found.push({ subresource: "status", responseKind, verbs: statusVerbs });
  if (type.kind === "Pod") {
    found.push({
      subresource: "binding",
      responseKind: { group: "", version: "v1", kind: "Binding" },
      verbs: bindingVerbs,
    });
  }
  for (const extra of extraSubresourcesOf(type)) {
    found.push({ subresource: extra.name, responseKind: extra.responseKind, verbs: extra.verbs });
  }
  return found;
}

function resourceDiscovery(type: ResourceType): Record<string, unknown> {
  const nested = subresources(type);
  const categories = categoriesOf(type);
  return {
    resource: type.plural,
    responseKind: { group: type.group, version: type.version, kind: type.kind },
    scope: type.namespaced ? "Namespaced" : "Cluster",
    singularResource: type.singular,
    verbs: objectVerbs,
    ...(type.shortNames.length > 0 ? { shortNames: [...type.shortNames] } : {}),
    ...(categories.length > 0 ? { categories } : {}),
    ...(nested.length > 0 ? { subresources: nested } : {}),
  };
}

function groupDiscovery(group: string, versions: readonly string[]): Record<string, unknown> {
  return {
    metadata: group === "" ? { creationTimestamp: null } : { name: group, creationTimestamp: null },
    versions: versions.map((version) => ({
      version,
      resources: [
        ...RESOURCES.filter((r) => r.group === group && r.version === version).map(resourceDiscovery),
        ...reviewsIn(group, version).map((review) => ({
          resource: review.plural,
          responseKind: { group: review.group, version: review.version, kind: review.kind },
          scope: "Cluster",
          singularResource: review.singular,
          verbs: reviewVerbs,
        })),
      ],
      freshness: "Current",
    })),
  };
}

function discoveryList(version: AggregatedDiscoveryVersion, items: Record<string, unknown>[]): Record<string, unknown> {
  return { kind: discoveryListKind, apiVersion: `${discoveryGroup}/${version}`, metadata: {}, items };
}

/** `/api` in aggregated form: the core group. */
export function aggregatedCoreDiscovery(version: AggregatedDiscoveryVersion): Record<string, unknown> {
  return discoveryList(version, [groupDiscovery("", ["v1"])]);
}

/** `/apis` in aggregated form: every named group. */
export function aggregatedGroupsDiscovery(version: AggregatedDiscoveryVersion): Record<string, unknown> {
  const groups = [...namedGroups()].map(([group, versions]) => groupDiscovery(group, versions));
  return discoveryList(version, groups);
}
