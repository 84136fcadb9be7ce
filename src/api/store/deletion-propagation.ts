/**
 * The garbage collector's finalizers a delete request adds or removes, as kube-apiserver's
 * `deletionFinalizersForGarbageCollection`: propagationPolicy Orphan sets `orphan`, Foreground
 * sets `foregroundDeletion`, Background clears both; without a policy, whatever the object already
 * carries stays. Only kinds that own dependents in kvol take the finalizers, so an object whose
 * kind no collector watches cannot be left waiting for one forever.
 */
import type { KindName, KObject } from "../objects.ts";
import type { ResourceType } from "../resources.ts";
import type { DeleteOptions } from "./store.ts";

export const orphanFinalizer = "orphan";
export const foregroundDeletionFinalizer = "foregroundDeletion";

/** Kinds the workload garbage collector treats as owners (see controllers/workloads/garbage-collector.ts). */
const propagationPolicyKinds: ReadonlySet<KindName> = new Set([
  "Deployment",
  "ReplicaSet",
  "StatefulSet",
  "Pod",
  "Node",
]);

/** The object's finalizers after the delete request's policy; undefined when they do not change. */
export function finalizersForPolicy(
  type: ResourceType,
  current: KObject,
  policy: DeleteOptions["propagationPolicy"],
): string[] | undefined {
  if (!propagationPolicyKinds.has(type.kind)) return undefined;
  const existing = current.metadata?.finalizers ?? [];
  const orphan = policy === "Orphan" || (policy === undefined && existing.includes(orphanFinalizer));
  const foreground =
    policy === "Foreground" || (policy === undefined && existing.includes(foregroundDeletionFinalizer));
  const next = existing.filter((name) => name !== orphanFinalizer && name !== foregroundDeletionFinalizer);
  if (orphan) next.push(orphanFinalizer);
  if (foreground) next.push(foregroundDeletionFinalizer);
  const unchanged = next.length === existing.length && next.every((name) => existing.includes(name));
  return unchanged ? undefined : next;
}
