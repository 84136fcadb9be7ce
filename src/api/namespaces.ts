/** Namespaces Kubernetes gives a meaning to. */
import { isAlreadyExists, isNotFound } from "./errors.ts";
import type { KObject } from "./objects.ts";
import { resourceForKind } from "./resources.ts";
import type { Store } from "./store/store.ts";

/** Where each node's heartbeat Lease lives (`kube-node-lease`, one Lease per node, named after it). */
export const nodeLeaseNamespace = "kube-node-lease";

/** The namespace a namespaced object without one is created in. */
export const defaultNamespaceName = "default";

/** The namespaces kube-apiserver creates at start (its system-namespaces controller). */
export const systemNamespaces = [defaultNamespaceName, "kube-system", "kube-public", nodeLeaseNamespace] as const;

/** The namespaces NamespaceLifecycle never lets anyone delete (`this namespace may not be deleted`). */
export const immortalNamespaces: ReadonlySet<string> = new Set([defaultNamespaceName, "kube-system", "kube-public"]);

/** Creates the system namespaces that are missing (a store kept from an earlier run has them already). */
export async function ensureSystemNamespaces(store: Store): Promise<void> {
  const type = resourceForKind("Namespace");
  if (type === undefined) throw new Error("the resource registry has no Namespace kind");
  for (const name of systemNamespaces) {
    // Read first: a create that fails still draws a uid, which would shift a simulated cluster's names.
    const exists = await store.get(type, "", name).then(
      () => true,
      (error: unknown) => {
        if (isNotFound(error)) return false;
        throw error;
      },
    );
    if (exists) continue;
    const namespace: KObject = { apiVersion: "v1", kind: "Namespace", metadata: { name } };
    await store.create(type, namespace).catch((error: unknown) => {
      if (!isAlreadyExists(error)) throw error;
    });
  }
}
