/**
 * The discovery documents kubectl and client libraries read before anything else: `/version`,
 * `/api` (APIVersions), `/apis` (APIGroupList) and one APIResourceList per group/version.
 */
import { apiVersionOf, RESOURCES, type ResourceType } from "../api/resources.ts";
import { servedGitVersion, servedKubernetesMajor, servedKubernetesMinor } from "./constants.ts";
import type { GroupVersionPath } from "./request-path.ts";

export const objectVerbs: readonly string[] = ["create", "delete", "get", "list", "patch", "update", "watch"];
export const statusVerbs: readonly string[] = ["get", "patch", "update"];
/** `pods/eviction` only creates (kubectl drain finds it here, with its policy/v1 group version). */
export const evictionVerbs = ["create"];
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

/** The named groups and their versions, in registry order. */
export function namedGroups(): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const type of RESOURCES) {
    if (type.group === "") continue;
    const versions = groups.get(type.group) ?? [];
    if (!versions.includes(type.version)) versions.push(type.version);
    groups.set(type.group, versions);
  }
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
    entries.push({
      name: "pods/eviction",
      singularName: "",
      namespaced: true,
      group: "policy",
      version: "v1",
      kind: "Eviction",
      verbs: evictionVerbs,
    });
  }
  return entries;
}

/** `/api/v1` or `/apis/<group>/<version>`: the resources served there. Undefined when none are. */
export function apiResourceList(gv: GroupVersionPath): Record<string, unknown> | undefined {
  const types = RESOURCES.filter((r) => r.group === gv.group && r.version === gv.version);
  const first = types[0];
  if (first === undefined) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: apiVersionOf(first),
    resources: types.flatMap(resourceEntries),
  };
}
