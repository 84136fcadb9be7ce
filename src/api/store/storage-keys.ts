/**
 * Where objects live in the key space: `/registry/<plural>/<namespace>/<name>` for namespaced
 * kinds, `/registry/<plural>/<name>` for cluster-scoped ones (kube-apiserver's layout in etcd).
 */
import type { ResourceType } from "../resources.ts";

const registryRoot = "/registry/";

/** The key of one object. `namespace` is ignored for cluster-scoped kinds. */
export function storageKey(type: ResourceType, namespace: string, name: string): string {
  return type.namespaced
    ? `${registryRoot}${type.plural}/${namespace}/${name}`
    : `${registryRoot}${type.plural}/${name}`;
}

/** The prefix of every object of `type`, or of those in one namespace ("" or undefined: all). */
export function storagePrefix(type: ResourceType, namespace?: string): string {
  return type.namespaced && namespace
    ? `${registryRoot}${type.plural}/${namespace}/`
    : `${registryRoot}${type.plural}/`;
}

/**
 * Why `segment` cannot be a name or namespace in a key, or undefined when it can
 * (Kubernetes' `path.IsValidPathSegmentName`).
 */
export function pathSegmentProblem(segment: string): string | undefined {
  if (segment === "." || segment === "..") return `may not be '${segment}'`;
  if (segment.includes("/")) return "may not contain '/'";
  if (segment.includes("%")) return "may not contain '%'";
  return undefined;
}
