/**
 * What kube-apiserver does to an update before storing it (`rest.BeforeUpdate` and the status
 * strategies): the fields a client cannot change are carried over from the stored object, the
 * status subresource splits spec writes from status writes, and generation counts spec changes.
 */
import type { FieldCause } from "../errors.ts";
import type { KObject } from "../objects.ts";
import { apiVersionOf, type ResourceType } from "../resources.ts";
import { tracksGeneration } from "./create-rules.ts";
import { jsonEqual, jsonEqualExceptField } from "./json-equal.ts";
import { keepSpecFinalizers } from "./namespace-rules.ts";
import { buildMetadata, withTypeAndMetadata } from "./object-shape.ts";
import { checkTypeMeta } from "./type-meta.ts";

/**
 * A write to the main resource. Identity and system fields (uid, name, namespace,
 * creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds, generation) stay as stored;
 * for kinds with a status subresource, so does status.
 */
export function prepareMainUpdate(type: ResourceType, input: KObject, current: KObject): KObject {
  checkTypeMeta(type, input);
  const stored = current.metadata ?? {};
  const specChanged = tracksGeneration(type) && !jsonEqual(input.spec, current.spec);
  const metadata = buildMetadata(input.metadata, {
    name: stored.name,
    namespace: stored.namespace,
    uid: stored.uid,
    generation: specChanged ? (stored.generation ?? 0) + 1 : stored.generation,
    creationTimestamp: stored.creationTimestamp,
    deletionTimestamp: stored.deletionTimestamp,
    deletionGracePeriodSeconds: stored.deletionGracePeriodSeconds,
  });
  const next = withTypeAndMetadata(apiVersionOf(type), type.kind, metadata, input);
  if (type.hasStatus) next.status = current.status;
  return type.kind === "Namespace" ? keepSpecFinalizers(next, current) : next;
}

/** A write to the status subresource: only status changes; everything else stays as stored. */
export function prepareStatusUpdate(input: KObject, current: KObject): KObject {
  return { ...current, status: input.status };
}

/** Kubernetes forbids adding finalizers to an object that is being deleted. */
export function finalizerCauses(next: KObject, current: KObject): FieldCause[] {
  if (!current.metadata?.deletionTimestamp) return [];
  const before = new Set(current.metadata.finalizers ?? []);
  const added = (next.metadata?.finalizers ?? []).filter((finalizer) => !before.has(finalizer));
  if (added.length === 0) return [];
  const listed = added.map((finalizer) => JSON.stringify(finalizer)).join(", ");
  return [
    {
      field: "metadata.finalizers",
      reason: "FieldValueForbidden",
      message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${listed}}`,
    },
  ];
}

/**
 * An update that removes the last finalizer of an object whose deletion has no grace period
 * left removes the object (Kubernetes' `shouldDeleteDuringUpdate`).
 */
export function completesDeletion(next: KObject, current: KObject): boolean {
  return (next.metadata?.finalizers ?? []).length === 0 && current.metadata?.deletionGracePeriodSeconds === 0;
}

/** True when `next` would store exactly what is stored (resourceVersion aside): Kubernetes skips such writes. */
export function sameStoredContent(next: KObject, current: KObject): boolean {
  return (
    jsonEqualExceptField(next, current, "metadata") &&
    jsonEqualExceptField(next.metadata, current.metadata, "resourceVersion")
  );
}
