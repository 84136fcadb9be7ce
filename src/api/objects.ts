/**
 * Object types. The shapes come from the `kubernetes-types` package (generated from Kubernetes'
 * OpenAPI), never written by hand; this file only names the ones kvol stores and adds the generic
 * shape every stored object has.
 */
import type { ControllerRevision, Deployment, ReplicaSet, StatefulSet } from "kubernetes-types/apps/v1.js";
import type { Job } from "kubernetes-types/batch/v1.js";
import type { Lease } from "kubernetes-types/coordination/v1.js";
import type {
  ConfigMap,
  Endpoints,
  Event,
  Namespace,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  Secret,
  Service,
  ServiceAccount,
} from "kubernetes-types/core/v1.js";
import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from "kubernetes-types/rbac/v1.js";
import type {
  CSIDriver,
  CSINode,
  CSIStorageCapacity,
  StorageClass,
  VolumeAttachment,
} from "kubernetes-types/storage/v1.js";
import type { VolumeSnapshot, VolumeSnapshotClass, VolumeSnapshotContent } from "./crd-types/snapshot/v1.ts";

export type {
  ClusterRole,
  ClusterRoleBinding,
  ConfigMap,
  ControllerRevision,
  CSIDriver,
  CSINode,
  CSIStorageCapacity,
  Deployment,
  Endpoints,
  Event,
  Job,
  Lease,
  Namespace,
  Node,
  ObjectMeta,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  ReplicaSet,
  Role,
  RoleBinding,
  Secret,
  Service,
  ServiceAccount,
  StatefulSet,
  StorageClass,
  VolumeAttachment,
  VolumeSnapshot,
  VolumeSnapshotClass,
  VolumeSnapshotContent,
};

/** Any stored object: what the store and the generic machinery rely on. */
export interface KObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: unknown;
  status?: unknown;
  [field: string]: unknown;
}

/** The kinds kvol stores, by kind name, so generic code can be typed per kind. */
export interface KindMap {
  Pod: Pod;
  Node: Node;
  PersistentVolume: PersistentVolume;
  PersistentVolumeClaim: PersistentVolumeClaim;
  Secret: Secret;
  ConfigMap: ConfigMap;
  Event: Event;
  Namespace: Namespace;
  StorageClass: StorageClass;
  VolumeAttachment: VolumeAttachment;
  CSIDriver: CSIDriver;
  CSINode: CSINode;
  CSIStorageCapacity: CSIStorageCapacity;
  StatefulSet: StatefulSet;
  ReplicaSet: ReplicaSet;
  Deployment: Deployment;
  Lease: Lease;
  ServiceAccount: ServiceAccount;
  Service: Service;
  Endpoints: Endpoints;
  ControllerRevision: ControllerRevision;
  Job: Job;
  VolumeSnapshot: VolumeSnapshot;
  VolumeSnapshotContent: VolumeSnapshotContent;
  VolumeSnapshotClass: VolumeSnapshotClass;
  Role: Role;
  ClusterRole: ClusterRole;
  RoleBinding: RoleBinding;
  ClusterRoleBinding: ClusterRoleBinding;
}

export type KindName = keyof KindMap;

/** `namespace/name` for namespaced objects, `name` for cluster-scoped ones (client-go's MetaNamespaceKey). */
export function objectKey(obj: { metadata?: ObjectMeta }): string {
  const meta = obj.metadata ?? {};
  return meta.namespace ? `${meta.namespace}/${meta.name ?? ""}` : (meta.name ?? "");
}

/** Splits a key made by `objectKey` back into namespace and name. */
export function splitObjectKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf("/");
  return slash < 0 ? { namespace: "", name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
