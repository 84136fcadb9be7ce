/**
 * Where a served kind's definition lives in Kubernetes' OpenAPI naming, and the meta definitions
 * the API's operations use as request and response bodies.
 */
import type { ResourceType } from "../resources.ts";

/** A group's short name: `core` for the core group, else its first label (`storage.k8s.io` → `storage`). */
export function shortGroupName(type: ResourceType): string {
  return type.group === "" ? "core" : (type.group.split(".")[0] ?? type.group);
}

/** The `kubernetes-types` module declaring the kind: `core/v1`, `storage/v1`. */
export function kindModulePath(type: ResourceType): string {
  return `${shortGroupName(type)}/${type.version}`;
}

/**
 * Groups Kubernetes serves through CustomResourceDefinitions, by short name: `kubernetes-types` has no
 * declarations for them, so kvol keeps its own under `src/api/crd-types/<short group>/<version>.ts`.
 */
export const customResourceGroups: Readonly<Record<string, string>> = { snapshot: "snapshot.storage.k8s.io" };

export function isCustomResourceGroup(type: ResourceType): boolean {
  return customResourceGroups[shortGroupName(type)] === type.group;
}

/** A custom resource's definitions are named by the reversed group (`io.k8s.storage.snapshot.v1`), as kube-apiserver names them. */
export function customResourcePrefix(group: string, version: string): string {
  return `${group.split(".").reverse().join(".")}.${version}`;
}

/** `io.k8s.api.<short group>.<version>` (`storage.k8s.io` → `io.k8s.api.storage.v1`). */
function kindDefinitionPrefix(type: ResourceType): string {
  if (isCustomResourceGroup(type)) return customResourcePrefix(type.group, type.version);
  return `io.k8s.api.${shortGroupName(type)}.${type.version}`;
}

/** The definition of a kind (`Pod`) or its list (`PodList`) in the type's group/version. */
export function kindDefinitionName(type: ResourceType, kind: string = type.kind): string {
  return `${kindDefinitionPrefix(type)}.${kind}`;
}

const metaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1";

/** Bodies of the API's operations besides the kinds themselves. */
export const operationDefinitions = {
  status: `${metaPrefix}.Status`,
  deleteOptions: `${metaPrefix}.DeleteOptions`,
  watchEvent: `${metaPrefix}.WatchEvent`,
  patch: `${metaPrefix}.Patch`,
  binding: "io.k8s.api.core.v1.Binding",
  scale: "io.k8s.api.autoscaling.v1.Scale",
} as const;

/** The `kubernetes-types` modules of the operation bodies that are not served kinds (the Scale of `scale`). */
export const operationDefinitionModules: readonly string[] = ["autoscaling/v1"];
