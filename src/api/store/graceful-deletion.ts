/**
 * How a delete request plays out, as kube-apiserver's `rest.BeforeDelete` and registry `Delete`
 * decide it:
 * - Pods are deleted gracefully: deletionTimestamp = now + grace period (the request's, else
 *   spec.terminationGracePeriodSeconds, else 30 s; 0 when the pod never reached a node or has
 *   finished) and the pod stays until a delete with grace period 0 (the kubelet's, once the
 *   containers are gone). A pod deleted with grace 0 is marked and then removed.
 * - Any object with finalizers gets deletionTimestamp = now and grace period 0, and stays until
 *   an update removes its last finalizer.
 * - A second delete may only shorten a pending grace period; otherwise it changes nothing.
 * - Everything else is removed at once.
 * - propagationPolicy Foreground or Orphan adds the garbage collector's finalizer first
 *   (deletion-propagation.ts), so such a delete always waits for the collector.
 */

import { formatRfc3339, parseRfc3339 } from "../../runtime/clock.ts";
import { msPerSecond } from "../../runtime/duration.ts";
import type { KObject, Pod } from "../objects.ts";
import type { ResourceType } from "../resources.ts";
import { defaultPodTerminationGracePeriodSeconds } from "./constants.ts";
import { finalizersForPolicy } from "./deletion-propagation.ts";
import { markNamespaceTerminating, namespaceSpecFinalizers } from "./namespace-rules.ts";
import type { MutableMeta } from "./object-shape.ts";
import type { DeleteOptions } from "./store.ts";

type DeletionPlan =
  /** Remove the object now. */
  | { action: "remove" }
  /** Store `object` (deletion metadata set); then remove it when `thenRemove`. */
  | { action: "mark"; object: KObject; thenRemove: boolean }
  /** A graceful deletion is already under way and the request does not shorten it. */
  | { action: "wait" };

/** Kubernetes treats a negative grace period as 1 s. */
function requestedGraceSeconds(options: DeleteOptions): number | undefined {
  const requested = options.gracePeriodSeconds;
  return requested === undefined ? undefined : Math.max(requested, requested < 0 ? 1 : 0);
}

/** The pod strategy's CheckGracefulDelete. */
function podGraceSeconds(pod: Pod, requested: number | undefined): number {
  if (!pod.spec?.nodeName) return 0;
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return 0;
  const period = requested ?? pod.spec.terminationGracePeriodSeconds ?? defaultPodTerminationGracePeriodSeconds;
  return period < 0 ? 1 : period;
}

function marked(current: KObject, changes: MutableMeta, thenRemove: boolean): DeletionPlan {
  return { action: "mark", object: { ...current, metadata: { ...current.metadata, ...changes } }, thenRemove };
}

function bumpedGeneration(current: KObject): number | undefined {
  const generation = current.metadata?.generation;
  return generation !== undefined && generation > 0 ? generation + 1 : generation;
}

/** Kubernetes' markAsDeleting: deleting now, no grace period, for objects held by finalizers. */
function markAsDeleting(current: KObject, nowMs: number): DeletionPlan {
  const existing = current.metadata?.deletionTimestamp;
  const keepExisting = existing !== undefined && parseRfc3339(existing) <= nowMs;
  return marked(
    current,
    {
      deletionTimestamp: keepExisting ? existing : formatRfc3339(nowMs),
      deletionGracePeriodSeconds: 0,
      generation: existing === undefined ? bumpedGeneration(current) : current.metadata?.generation,
    },
    false,
  );
}

/** A second delete of an object whose deletion is already under way. */
function planRepeatedDeletion(current: KObject, requested: number | undefined, nowMs: number): DeletionPlan {
  const meta = current.metadata ?? {};
  const pendingFinalizers = (meta.finalizers ?? []).length > 0;
  const grace = meta.deletionGracePeriodSeconds;
  if (grace === undefined || grace === 0)
    return pendingFinalizers ? markAsDeleting(current, nowMs) : { action: "remove" };
  if (requested === undefined || requested >= grace) return { action: "wait" };
  // Only shortening is allowed: move the deadline back by the difference, never into the past.
  let deadlineMs = parseRfc3339(meta.deletionTimestamp as string) - (grace - requested) * msPerSecond;
  let period = requested;
  if (deadlineMs < nowMs) {
    deadlineMs = nowMs;
    if (period !== 0) period = 1;
  }
  return marked(
    current,
    { deletionTimestamp: formatRfc3339(deadlineMs), deletionGracePeriodSeconds: period },
    period === 0 && !pendingFinalizers,
  );
}

/**
 * The plan for a delete request. A propagationPolicy that changes the garbage collector's
 * finalizers (deletion-propagation.ts) is planned against the object with its new finalizers,
 * and that change is stored even when the deletion itself has nothing more to do.
 */
export function planDeletion(
  type: ResourceType,
  current: KObject,
  options: DeleteOptions,
  nowMs: number,
): DeletionPlan {
  const finalizers = finalizersForPolicy(type, current, options.propagationPolicy);
  if (finalizers === undefined) return planWithFinalizers(type, current, options, nowMs);
  const adjusted: KObject = {
    ...current,
    metadata: { ...current.metadata, finalizers: finalizers.length > 0 ? finalizers : undefined },
  };
  const plan = planWithFinalizers(type, adjusted, options, nowMs);
  return plan.action === "wait" ? { action: "mark", object: adjusted, thenRemove: false } : plan;
}

/** A namespace its spec finalizers hold is marked Terminating and kept (see namespace-rules.ts). */
function planNamespaceDeletion(current: KObject, nowMs: number): DeletionPlan | undefined {
  if (namespaceSpecFinalizers(current).length === 0) return undefined;
  if (current.metadata?.deletionTimestamp) return { action: "wait" };
  return { action: "mark", object: markNamespaceTerminating(current, nowMs), thenRemove: false };
}

function planWithFinalizers(type: ResourceType, current: KObject, options: DeleteOptions, nowMs: number): DeletionPlan {
  if (type.kind === "Namespace") {
    const planned = planNamespaceDeletion(current, nowMs);
    if (planned !== undefined) return planned;
  }
  const requested = requestedGraceSeconds(options);
  if (current.metadata?.deletionTimestamp) return planRepeatedDeletion(current, requested, nowMs);
  const pendingFinalizers = (current.metadata?.finalizers ?? []).length > 0;
  if (type.kind === "Pod") {
    const period = podGraceSeconds(current as Pod, requested);
    return marked(
      current,
      {
        deletionTimestamp: formatRfc3339(nowMs + period * msPerSecond),
        deletionGracePeriodSeconds: period,
        generation: bumpedGeneration(current),
      },
      period === 0 && !pendingFinalizers,
    );
  }
  return pendingFinalizers ? markAsDeleting(current, nowMs) : { action: "remove" };
}
