/**
 * The namespace registry's own rules (kube-apiserver's namespace strategy and storage):
 * - a new namespace gets the `kubernetes` finalizer in `spec.finalizers`, the one the namespace
 *   controller removes once everything in the namespace is deleted;
 * - `spec.finalizers` changes only through the `finalize` subresource, never by an update;
 * - a delete of a namespace with spec finalizers marks it (deletionTimestamp, phase Terminating)
 *   and it stays until both its spec finalizers and its metadata finalizers are gone.
 */
import { formatRfc3339 } from "../../runtime/clock.ts";
import type { KObject } from "../objects.ts";

/** The finalizer kube-apiserver puts in every namespace's spec (`FinalizerKubernetes`). */
export const namespaceFinalizerKubernetes = "kubernetes";

export const namespaceTerminatingPhase = "Terminating";

interface NamespaceSpec {
  finalizers?: string[];
}

function specOf(object: KObject): NamespaceSpec {
  const spec = object.spec;
  return spec !== null && typeof spec === "object" && !Array.isArray(spec) ? (spec as NamespaceSpec) : {};
}

export function namespaceSpecFinalizers(object: KObject): readonly string[] {
  return specOf(object).finalizers ?? [];
}

/** PrepareForCreate: the `kubernetes` finalizer is always in spec.finalizers. */
export function withKubernetesFinalizer(object: KObject): KObject {
  const spec = specOf(object);
  const finalizers = spec.finalizers ?? [];
  if (finalizers.includes(namespaceFinalizerKubernetes)) return object;
  return { ...object, spec: { ...spec, finalizers: [...finalizers, namespaceFinalizerKubernetes] } };
}

/** PrepareForUpdate of the main resource: spec.finalizers stay as stored. */
export function keepSpecFinalizers(next: KObject, current: KObject): KObject {
  const stored = specOf(current).finalizers;
  const spec: NamespaceSpec = { ...specOf(next) };
  if (stored === undefined) delete spec.finalizers;
  else spec.finalizers = stored;
  return { ...next, spec };
}

/** The `finalize` subresource: only spec.finalizers changes. */
export function prepareFinalizeUpdate(input: KObject, current: KObject): KObject {
  const finalizers = specOf(input).finalizers;
  const spec: NamespaceSpec = { ...specOf(current) };
  if (finalizers === undefined || finalizers.length === 0) delete spec.finalizers;
  else spec.finalizers = finalizers;
  return { ...current, spec };
}

/** A namespace being deleted that nothing holds any more goes (the registry's delete after finalize). */
export function completesNamespaceDeletion(next: KObject): boolean {
  return (
    next.metadata?.deletionTimestamp !== undefined &&
    namespaceSpecFinalizers(next).length === 0 &&
    (next.metadata.finalizers ?? []).length === 0
  );
}

/** The delete of a namespace its spec finalizers hold: marked now, phase Terminating, and kept. */
export function markNamespaceTerminating(current: KObject, nowMs: number): KObject {
  const meta = current.metadata ?? {};
  const status = (current.status ?? {}) as Record<string, unknown>;
  return {
    ...current,
    metadata: {
      ...meta,
      deletionTimestamp: meta.deletionTimestamp ?? formatRfc3339(nowMs),
      deletionGracePeriodSeconds: 0,
    },
    status: { ...status, phase: namespaceTerminatingPhase },
  };
}
