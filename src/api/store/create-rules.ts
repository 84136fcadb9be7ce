/**
 * What kube-apiserver does to an object before storing a create (`rest.BeforeCreate` and the
 * per-kind `PrepareForCreate` strategies): system metadata, namespace defaulting, and the status a
 * new object starts with. For kinds with a status subresource the status in the request is
 * dropped (Node excepted: a kubelet registers its node with status), so a new pod, claim or volume
 * is always Pending until its controller says otherwise through the status subresource.
 */

import { formatRfc3339 } from "../../runtime/clock.ts";
import { badRequest } from "../errors.ts";
import type { KindName, KObject } from "../objects.ts";
import { apiVersionOf, type ResourceType } from "../resources.ts";
import { completeForCreate } from "./create-strategies.ts";
import { withKubernetesFinalizer } from "./namespace-rules.ts";
import { buildMetadata, type MutableMeta, withTypeAndMetadata } from "./object-shape.ts";
import { checkTypeMeta } from "./type-meta.ts";

/** Kinds whose metadata.generation counts spec changes (the workload kinds, and pods as in Kubernetes 1.33+). */
const kindsWithGeneration: ReadonlySet<KindName> = new Set(["Pod", "Deployment", "ReplicaSet", "StatefulSet", "Job"]);

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
  Job: () => ({}),
  Service: () => ({ loadBalancer: {} }),
};

interface CreateStamp {
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
  const requested = input.metadata ?? {};
  if (requested.resourceVersion) throw badRequest("resourceVersion should not be set on objects to be created");
  const metadata = buildMetadata(requested, {
    name: requested.name,
    namespace: type.namespaced ? requested.namespace || "default" : undefined,
    uid: stamp.uid,
    generation: tracksGeneration(type) ? 1 : undefined,
    creationTimestamp: formatRfc3339(stamp.nowMs),
    deletionTimestamp: undefined,
    deletionGracePeriodSeconds: undefined,
  });
  const content = type.kind === "Namespace" ? withKubernetesFinalizer(input) : input;
  const object = withTypeAndMetadata(apiVersionOf(type), type.kind, metadata, content);
  const status = initialStatus[type.kind];
  if (status !== undefined) object.status = status(stamp.nowMs);
  completeForCreate(type.kind, object);
  return object;
}
