/**
 * The `pods/binding` subresource (kube-apiserver's BindingREST): how a scheduler places a pod. A
 * POST of a Binding sets `spec.nodeName`, copies the Binding's annotations onto the pod and sets the
 * PodScheduled condition to True, in one guarded write; it never moves a pod that already has a node.
 *
 * Like Kubernetes' `GuaranteedUpdate`, the write re-reads and tries again when a concurrent writer
 * moved the pod in between; the checks run against every fresh read. The pod validation of an
 * ordinary update is not run (the registry writes storage directly); only the Binding is validated.
 */

import type { Clock } from "../../runtime/clock.ts";
import { goQuote } from "../../runtime/go-quote.ts";
import { type ApiError, conflict, invalid, notFound } from "../errors.ts";
import type { KObject, Pod } from "../objects.ts";
import { updatePodCondition } from "../pod-conditions.ts";
import { resourceForKind } from "../resources.ts";
import { BackendConflict, type KVBackend } from "./backend.ts";
import { unconditionalWriteMaxAttempts } from "./constants.ts";
import { storageKey } from "./storage-keys.ts";

export interface BindPodOptions {
  /** Binding.metadata.uid: the pod must still be this one (the default scheduler always sends it). */
  uid?: string;
  /** Binding.metadata.annotations: added to the pod's annotations, replacing same-named ones. */
  annotations?: Readonly<Record<string, string>>;
}

/** What the binding needs of the store it runs in. */
interface PodBindingContext {
  backend: KVBackend;
  clock: Clock;
}

const podType = (() => {
  const type = resourceForKind("Pod");
  if (type === undefined) throw new Error("pod-binding: Pod is missing from the resource registry");
  return type;
})();

/** Errors that are not API statuses become a Conflict on `pods/binding`, as BindingREST.assignPod does. */
function bindingConflict(podName: string, why: string): ApiError {
  return conflict("pods/binding", "", podName, why);
}

/** ValidatePodBinding: the target must name a node. */
function checkTarget(podName: string, nodeName: string): void {
  if (nodeName !== "") return;
  throw invalid("Binding", "", podName, [
    { field: "target.name", reason: "FieldValueRequired", message: "Required value" },
  ]);
}

/** The reasons a pod may not be bound, checked against its current stored state. */
function checkBindable(pod: Pod, name: string, options: BindPodOptions): void {
  const storedUid = pod.metadata?.uid;
  if (options.uid !== undefined && options.uid !== "" && options.uid !== storedUid) {
    const why = `Precondition failed: UID in precondition: ${options.uid}, UID in object meta: ${storedUid ?? ""}`;
    throw conflict("pods", "", name, why);
  }
  if (pod.metadata?.deletionTimestamp) {
    throw bindingConflict(name, `pod ${name} is being deleted, cannot be assigned to a host`);
  }
  const assigned = pod.spec?.nodeName;
  if (assigned) throw bindingConflict(name, `pod ${name} is already assigned to node ${goQuote(assigned)}`);
  if ((pod.spec?.schedulingGates ?? []).length > 0) {
    throw bindingConflict(name, `pod ${name} has non-empty .spec.schedulingGates`);
  }
}

function boundCopy(pod: Pod, nodeName: string, options: BindPodOptions, nowMs: number): KObject {
  const metadata = { ...pod.metadata, resourceVersion: undefined };
  if (options.annotations !== undefined && Object.keys(options.annotations).length > 0) {
    metadata.annotations = { ...pod.metadata?.annotations, ...options.annotations };
  }
  return {
    ...(pod as KObject),
    metadata,
    spec: { ...pod.spec, containers: pod.spec?.containers ?? [], nodeName },
    status: updatePodCondition(pod.status, { type: "PodScheduled", status: "True" }, nowMs).status,
  };
}

/** Binds pod `namespace/name` to `nodeName`; returns the pod as stored afterwards. */
export async function bindPod(
  context: PodBindingContext,
  namespace: string,
  name: string,
  nodeName: string,
  options: BindPodOptions = {},
): Promise<Pod> {
  checkTarget(name, nodeName);
  const key = storageKey(podType, namespace, name);
  for (let attempt = 1; attempt <= unconditionalWriteMaxAttempts; attempt++) {
    const current = await context.backend.get(key);
    if (current === undefined) throw notFound("pods", "", name);
    const pod = current.object as Pod;
    checkBindable(pod, name, options);
    const next = boundCopy(pod, nodeName, options, context.clock.now());
    try {
      return (await context.backend.update(key, next, current.modRevision)).object as Pod;
    } catch (error) {
      if (!(error instanceof BackendConflict)) throw error;
      // Someone wrote the pod in between: read it again and decide again.
    }
  }
  throw conflict(
    "pods/binding",
    "",
    name,
    `the pod kept changing during ${unconditionalWriteMaxAttempts} attempts to bind it; try again`,
  );
}
