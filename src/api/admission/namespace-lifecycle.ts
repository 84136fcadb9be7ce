/**
 * NamespaceLifecycle, as kube-apiserver's admission plugin enforces it:
 * - nothing is created in a namespace that does not exist (404 `namespaces "ghost-ns" not found`)
 *   or that is being deleted (403 `… unable to create new content in namespace x because it is
 *   being terminated`), so a namespace's deletion always finishes;
 * - `default`, `kube-system` and `kube-public` can never be deleted.
 */
import { ApiError, isApiError, isNotFound, notFound } from "../errors.ts";
import { defaultNamespaceName, immortalNamespaces } from "../namespaces.ts";
import type { KObject } from "../objects.ts";
import { type ResourceType, resourceForKind } from "../resources.ts";
import { namespaceTerminatingPhase } from "../store/namespace-rules.ts";
import type { Store } from "../store/store.ts";
import { admissionForbidden } from "./admission-errors.ts";

/** The StatusCause type kube-apiserver attaches to the refusal (`v1.NamespaceTerminatingCause`). */
const namespaceTerminatingCause = "NamespaceTerminating";

function namespaceType(): ResourceType {
  const type = resourceForKind("Namespace");
  if (type === undefined) throw new Error("the resource registry has no Namespace kind");
  return type;
}

async function namespaceNamed(store: Store, name: string): Promise<KObject | undefined> {
  try {
    return await store.get<KObject>(namespaceType(), "", name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

function isTerminating(namespace: KObject): boolean {
  const phase = (namespace.status as { phase?: string } | undefined)?.phase;
  return phase === namespaceTerminatingPhase || namespace.metadata?.deletionTimestamp !== undefined;
}

function terminating(type: ResourceType, name: string, namespace: string): ApiError {
  const refusal = admissionForbidden(
    type,
    name,
    `unable to create new content in namespace ${namespace} because it is being terminated`,
  );
  return new ApiError(refusal.reason, refusal.message, {
    ...refusal.details,
    causes: [
      {
        reason: namespaceTerminatingCause,
        message: `namespace ${namespace} is being terminated`,
        field: "metadata.namespace",
      },
    ],
  });
}

/** Refuses the create of a namespaced object whose namespace is missing or being deleted. */
export async function admitCreateInNamespace(store: Store, type: ResourceType, object: KObject): Promise<void> {
  if (!type.namespaced) return;
  // The store puts a namespaced object without a namespace in `default`, so that is the one to check.
  const namespace = object.metadata?.namespace || defaultNamespaceName;
  let found: KObject | undefined;
  try {
    found = await namespaceNamed(store, namespace);
  } catch (error) {
    // kube-apiserver answers this check from its namespace informer, which an unavailable etcd
    // does not empty: the create goes on and meets the outage itself (`The create operation
    // against configmaps could not be completed …`), as there.
    if (isApiError(error, "ServiceUnavailable")) return;
    throw error;
  }
  if (found === undefined) throw notFound("namespaces", "", namespace);
  if (isTerminating(found)) throw terminating(type, object.metadata?.name ?? "", namespace);
}

/** Refuses the delete of a namespace Kubernetes keeps for ever. */
export function admitNamespaceDelete(type: ResourceType, name: string): void {
  if (type.kind === "Namespace" && immortalNamespaces.has(name)) {
    throw admissionForbidden(type, name, "this namespace may not be deleted");
  }
}
