/**
 * What kube-apiserver does to an object before storing a create (`rest.BeforeCreate` and the
 * per-kind `PrepareForCreate` strategies): system metadata, namespace defaulting, and the status a
 * new object starts with. For kinds with a status subresource the status in the request is
 * dropped (Node excepted: a kubelet registers its node with status), so a new pod, claim or volume
 * is always Pending until its controller says otherwise through the status subresource.
 */

import { formatRfc3339 } from "../../runtime/clock.ts";
import { badRequest } from "../errors.ts";
import type { KindName, KObject, ObjectMeta } from "../objects.ts";
import { apiVersionOf, type ResourceType } from "../resources.ts";
import { checkTypeMeta } from "./type-meta.ts";

export type MutableMeta = { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] };

/** Kinds whose metadata.generation counts spec changes (the workload kinds, and pods as in Kubernetes 1.33+). */
const kindsWithGeneration: ReadonlySet<KindName> = new Set(["Pod", "Deployment", "ReplicaSet", "StatefulSet"]);

export function tracksGeneration(type: ResourceType): boolean {
  return kindsWithGeneration.has(type.kind);
}

/** The status each kind starts with; kinds absent here keep the status they were created with. */
const initialStatus: Partial<Record<KindName, (nowMs: number) => unknown>> = {
  Pod: () => ({ phase: "Pending" }),
  PersistentVolume: (nowMs) => ({ phase: "Pending", lastPhaseTransitionTime: formatRfc3339(nowMs) }),
  PersistentVolumeClaim: () => ({ phase: "Pending" }),
  VolumeAttachment: () => ({ attached: false }),
  Namespace: () => ({ phase: "Active" }),
  Deployment: () => ({}),
  ReplicaSet: () => ({ replicas: 0 }),
  StatefulSet: () => ({ replicas: 0, availableReplicas: 0 }),
};

/**
 * Kubernetes' field order, so stored objects print the way kubectl shows them (a key set to
 * undefined keeps its place and is dropped when the object is frozen).
 */
const metadataKeyOrder: MutableMeta = {
  name: undefined,
  generateName: undefined,
  namespace: undefined,
  uid: undefined,
  resourceVersion: undefined,
  generation: undefined,
  creationTimestamp: undefined,
};

export interface CreateStamp {
  nowMs: number;
  uid: string;
}

/**
 * A new object ready to store (its metadata is a fresh, mutable copy; `metadata.name` may still be
 * empty when `generateName` is set). The input is not changed.
 */
export function prepareForCreate(
  type: ResourceType,
  input: KObject,
  stamp: CreateStamp,
): KObject & { metadata: MutableMeta } {
  checkTypeMeta(type, input);
  const metadata: MutableMeta = { ...metadataKeyOrder, ...input.metadata };
  if (metadata.resourceVersion) throw badRequest("resourceVersion should not be set on objects to be created");
  metadata.namespace = type.namespaced ? metadata.namespace || "default" : undefined;
  metadata.uid = stamp.uid;
  metadata.creationTimestamp = formatRfc3339(stamp.nowMs);
  metadata.deletionTimestamp = undefined;
  metadata.deletionGracePeriodSeconds = undefined;
  metadata.generation = tracksGeneration(type) ? 1 : undefined;
  const apiVersion = apiVersionOf(type);
  const typeMeta = { apiVersion, kind: type.kind, metadata };
  // typeMeta twice: first for the key order, last so the input cannot override it.
  const object: KObject & { metadata: MutableMeta } = { ...typeMeta, ...input, ...typeMeta };
  const status = initialStatus[type.kind];
  if (status !== undefined) object.status = status(stamp.nowMs);
  return object;
}
