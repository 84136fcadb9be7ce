/**
 * The resource registry: for each stored kind, its API group/version, plural resource name,
 * scope and whether it has a status subresource. The store, the API server and the clients all
 * read this one table.
 */
import type { KindName } from "./objects.ts";

export interface ResourceType {
  kind: KindName;
  /** "" for the core group. */
  group: string;
  version: string;
  /** The plural, lower-case resource name used in URLs and store keys (`persistentvolumeclaims`). */
  plural: string;
  singular: string;
  shortNames: readonly string[];
  namespaced: boolean;
  /** A status subresource: status writes cannot change spec, spec writes cannot change status. */
  hasStatus: boolean;
}

function resource(
  kind: KindName,
  group: string,
  version: string,
  plural: string,
  options: { namespaced: boolean; hasStatus: boolean; shortNames?: readonly string[] },
): ResourceType {
  return {
    kind,
    group,
    version,
    plural,
    singular: kind.toLowerCase(),
    shortNames: options.shortNames ?? [],
    namespaced: options.namespaced,
    hasStatus: options.hasStatus,
  };
}

/** Role-based access control's API group. */
export const rbacGroup = "rbac.authorization.k8s.io";

export const RESOURCES: readonly ResourceType[] = [
  resource("Pod", "", "v1", "pods", { namespaced: true, hasStatus: true, shortNames: ["po"] }),
  resource("Node", "", "v1", "nodes", { namespaced: false, hasStatus: true, shortNames: ["no"] }),
  resource("PersistentVolume", "", "v1", "persistentvolumes", {
    namespaced: false,
    hasStatus: true,
    shortNames: ["pv"],
  }),
  resource("PersistentVolumeClaim", "", "v1", "persistentvolumeclaims", {
    namespaced: true,
    hasStatus: true,
    shortNames: ["pvc"],
  }),
  resource("Secret", "", "v1", "secrets", { namespaced: true, hasStatus: false }),
  resource("ConfigMap", "", "v1", "configmaps", { namespaced: true, hasStatus: false, shortNames: ["cm"] }),
  resource("Event", "", "v1", "events", { namespaced: true, hasStatus: false, shortNames: ["ev"] }),
  resource("Namespace", "", "v1", "namespaces", { namespaced: false, hasStatus: true, shortNames: ["ns"] }),
  resource("StorageClass", "storage.k8s.io", "v1", "storageclasses", {
    namespaced: false,
    hasStatus: false,
    shortNames: ["sc"],
  }),
  resource("VolumeAttachment", "storage.k8s.io", "v1", "volumeattachments", { namespaced: false, hasStatus: true }),
  resource("CSIDriver", "storage.k8s.io", "v1", "csidrivers", { namespaced: false, hasStatus: false }),
  resource("CSINode", "storage.k8s.io", "v1", "csinodes", { namespaced: false, hasStatus: false }),
  resource("CSIStorageCapacity", "storage.k8s.io", "v1", "csistoragecapacities", {
    namespaced: true,
    hasStatus: false,
  }),
  resource("StatefulSet", "apps", "v1", "statefulsets", { namespaced: true, hasStatus: true, shortNames: ["sts"] }),
  resource("ReplicaSet", "apps", "v1", "replicasets", { namespaced: true, hasStatus: true, shortNames: ["rs"] }),
  resource("Deployment", "apps", "v1", "deployments", { namespaced: true, hasStatus: true, shortNames: ["deploy"] }),
  resource("Lease", "coordination.k8s.io", "v1", "leases", { namespaced: true, hasStatus: false }),
  resource("ServiceAccount", "", "v1", "serviceaccounts", { namespaced: true, hasStatus: false, shortNames: ["sa"] }),
  resource("Service", "", "v1", "services", { namespaced: true, hasStatus: true, shortNames: ["svc"] }),
  resource("Endpoints", "", "v1", "endpoints", { namespaced: true, hasStatus: false, shortNames: ["ep"] }),
  resource("ControllerRevision", "apps", "v1", "controllerrevisions", { namespaced: true, hasStatus: false }),
  resource("Job", "batch", "v1", "jobs", { namespaced: true, hasStatus: true }),
  // The external-snapshotter's CustomResourceDefinitions, served as kube-apiserver serves them.
  resource("VolumeSnapshot", "snapshot.storage.k8s.io", "v1", "volumesnapshots", {
    namespaced: true,
    hasStatus: true,
    shortNames: ["vs"],
  }),
  resource("VolumeSnapshotContent", "snapshot.storage.k8s.io", "v1", "volumesnapshotcontents", {
    namespaced: false,
    hasStatus: true,
    shortNames: ["vsc", "vscs"],
  }),
  resource("VolumeSnapshotClass", "snapshot.storage.k8s.io", "v1", "volumesnapshotclasses", {
    namespaced: false,
    hasStatus: false,
    shortNames: ["vsclass", "vsclasses"],
  }),
  resource("Role", rbacGroup, "v1", "roles", { namespaced: true, hasStatus: false }),
  resource("ClusterRole", rbacGroup, "v1", "clusterroles", { namespaced: false, hasStatus: false }),
  resource("RoleBinding", rbacGroup, "v1", "rolebindings", { namespaced: true, hasStatus: false }),
  resource("ClusterRoleBinding", rbacGroup, "v1", "clusterrolebindings", { namespaced: false, hasStatus: false }),
];

const byKind = new Map<string, ResourceType>(RESOURCES.map((r) => [r.kind, r]));
const byPlural = new Map<string, ResourceType>(RESOURCES.map((r) => [r.plural, r]));

/** `v1` for the core group, `group/version` otherwise. */
export function apiVersionOf(type: ResourceType): string {
  return type.group === "" ? type.version : `${type.group}/${type.version}`;
}

export function resourceForKind(kind: string): ResourceType | undefined {
  return byKind.get(kind);
}

export function resourceForPlural(plural: string): ResourceType | undefined {
  return byPlural.get(plural);
}

/** Looks a resource up the way kubectl does: plural, singular, short name or kind, any case. */
export function resolveResourceName(name: string): ResourceType | undefined {
  const lower = name.toLowerCase();
  return RESOURCES.find(
    (r) => r.plural === lower || r.singular === lower || r.shortNames.includes(lower) || r.kind.toLowerCase() === lower,
  );
}
