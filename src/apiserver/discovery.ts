/**
 * The discovery documents kubectl and client libraries read before anything else: `/version`,
 * `/api` (APIVersions), `/apis` (APIGroupList) and one APIResourceList per group/version.
 */
import { apiVersionOf, RESOURCES, type ResourceType } from "../api/resources.ts";
import { isCustomResourceGroup } from "../api/schema/kind-definitions.ts";
import { servedGitVersion, servedKubernetesMajor, servedKubernetesMinor } from "./constants.ts";
import type { GroupVersionPath } from "./request-path.ts";
import { type ReviewResource, reviewVerbs, selfReviewResources } from "./self-review-paths.ts";
import { extraSubresourcesOf } from "./subresource-table.ts";

export const objectVerbs: readonly string[] = ["create", "delete", "get", "list", "patch", "update", "watch"];
export const statusVerbs: readonly string[] = ["get", "patch", "update"];
export const bindingVerbs: readonly string[] = ["create"];

/** Kinds `kubectl get all` shows: kube-apiserver puts them in the `all` category. */
const allCategoryKinds = new Set(["Pod", "Deployment", "ReplicaSet", "StatefulSet"]);

export function categoriesOf(type: ResourceType): string[] {
  return allCategoryKinds.has(type.kind) ? ["all"] : [];
}

export function versionInfo(): Record<string, string> {
  return {
    major: servedKubernetesMajor,
    minor: servedKubernetesMinor,
    gitVersion: servedGitVersion,
    gitCommit: "",
    gitTreeState: "clean",
    buildDate: "",
    goVersion: "",
    compiler: "kvol",
    platform: `${process.platform}/${process.arch}`,
  };
}

/** `/api`: the core group's versions. */
export function coreApiVersions(): Record<string, unknown> {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] };
}

/** The named groups and their versions, in registry order; custom resources' groups last, as kube-apiserver lists them. */
export function namedGroups(): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  const add = (group: string, version: string): void => {
    const versions = groups.get(group) ?? [];
    if (!versions.includes(version)) versions.push(version);
    groups.set(group, versions);
  };
  const builtIn = RESOURCES.filter((type) => type.group !== "" && !isCustomResourceGroup(type));
  for (const type of builtIn) add(type.group, type.version);
  for (const review of selfReviewResources) add(review.group, review.version);
  for (const type of RESOURCES.filter(isCustomResourceGroup)) add(type.group, type.version);
  return groups;
}

/** `/apis`: every named group with its preferred version. */
export function apiGroupList(): Record<string, unknown> {
  const groups = [...namedGroups()].map(([name, versions]) => {
    const listed = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
    return { name, versions: listed, preferredVersion: listed[0] };
  });
  return { kind: "APIGroupList", apiVersion: "v1", groups };
}

/** `/apis/<group>`: one group. Undefined when the group is not served. */
export function apiGroup(group: string): Record<string, unknown> | undefined {
  const versions = namedGroups().get(group);
  if (versions === undefined) return undefined;
  const listed = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { kind: "APIGroup", apiVersion: "v1", name: group, versions: listed, preferredVersion: listed[0] };
}

function resourceEntries(type: ResourceType): Record<string, unknown>[] {
  const main = {
    name: type.plural,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: objectVerbs,
    ...(type.shortNames.length > 0 ? { shortNames: [...type.shortNames] } : {}),
    ...(categoriesOf(type).length > 0 ? { categories: categoriesOf(type) } : {}),
  };
  const entries: Record<string, unknown>[] = [main];
  if (type.hasStatus) {
    entries.push({
      name: `${type.plural}/status`,
      singularName: "",
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: statusVerbs,
    });
  }
  if (type.kind === "Pod") {
    entries.push({ name: "pods/binding", singularName: "", namespaced: true, kind: "Binding", verbs: bindingVerbs });
  }
  for (const extra of extraSubresourcesOf(type)) {
    const { group, version, kind } = extra.responseKind;
    const otherGroup = group !== type.group || version !== type.version ? { group, version } : {};
    entries.push({
      name: `${type.plural}/${extra.name}`,
      singularName: "",
      namespaced: type.namespaced,
      ...otherGroup,
      kind,
      verbs: extra.verbs,
    });
  }
  return entries;
}

/** The self reviews served in a group/version (create-only, cluster-scoped, stored nowhere). */
export function reviewsIn(group: string, version: string): ReviewResource[] {
  return selfReviewResources.filter((r) => r.group === group && r.version === version);
}

/** `/api/v1` or `/apis/<group>/<version>`: the resources served there. Undefined when none are. */
export function apiResourceList(gv: GroupVersionPath): Record<string, unknown> | undefined {
  const types = RESOURCES.filter((r) => r.group === gv.group && r.version === gv.version);
  const reviews = reviewsIn(gv.group, gv.version).map((review) => ({
    name: review.plural,
    singularName: review.singular,
    namespaced: false,
    kind: review.kind,
    verbs: reviewVerbs,
  }));
  const first = types[0];
  if (first === undefined && reviews.length === 0) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: first === undefined ? `${gv.group}/${gv.version}` : apiVersionOf(first),
    resources: [...types.flatMap(resourceEntries), ...reviews],
  };
}
