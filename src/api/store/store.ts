/**
 * The Store: Kubernetes API semantics over a KVBackend. This is the contract every component
 * writes against (through a Client); the API server serves it over HTTP. `KubeStore`
 * (kube-store.ts) implements it over any backend; `createMemoryStore` and `openSqliteStore` build one.
 *
 * Semantics (as kube-apiserver's generic registry):
 * - Objects handed out are deeply frozen and shared; the caller's objects are never changed or frozen.
 * - create: fills uid, creationTimestamp (from the Clock), the name from generateName (prefix + 5
 *   random characters, retried on collision), namespace "default" for namespaced kinds, kind and
 *   apiVersion; refuses a resourceVersion. Validates. For kinds with a status subresource the status
 *   sent is replaced by the kind's initial one (pods, claims and volumes start Pending), except Node,
 *   which a kubelet registers with status. resourceVersion is the global revision of the write.
 * - update: a stale `metadata.resourceVersion` gives Conflict; an empty one means "unconditional";
 *   a `metadata.uid` that differs from the stored one gives Conflict. uid, name, namespace,
 *   creationTimestamp and the deletion fields are kept as stored; generation counts spec changes
 *   (pods and workloads). The main resource cannot change status; the status subresource changes
 *   status only. A write that changes nothing stores nothing (same resourceVersion, no event).
 * - delete: pods are deleted gracefully (deletionTimestamp = now + grace period; removed by a
 *   delete with grace period 0; at once when unscheduled or finished); an object with finalizers
 *   gets deletionTimestamp and stays until an update removes the last one; no finalizer can be
 *   added while deleting. propagationPolicy Foreground/Orphan adds the garbage collector's
 *   finalizer (see DeleteOptions). dryRun on create, update and delete validates and answers
 *   without writing.
 * - list/watch: by namespace, label selector and field selector; list as of a revision and in
 *   pages (limit/continue pin one snapshot); watch from "now" (ADDED for current objects) or from a
 *   revision; objects entering or leaving a selector are ADDED or DELETED; Gone (410) when the
 *   revision is older than the compaction window (`historyWindowRevisions`), for watch as a
 *   rejected promise; BOOKMARK events every `watchBookmarkIntervalMs` when asked for.
 */
import type { KObject, Pod } from "../objects.ts";
import type { ResourceType } from "../resources.ts";
import type { BindPodOptions } from "./pod-binding.ts";

export type { BindPodOptions };

type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchEvent<T = KObject> {
  type: WatchEventType;
  /** Frozen. For BOOKMARK, only `metadata.resourceVersion` is meaningful. For ERROR, a Status. */
  object: T;
}

export interface ListOptions {
  /** Omit or "" for all namespaces (ignored for cluster-scoped kinds). */
  namespace?: string;
  /** Kubernetes syntax: `app=web,tier!=db,env in (a,b),!legacy`. */
  labelSelector?: string;
  /** Kubernetes syntax: `spec.nodeName=node-1,status.phase!=Succeeded`. */
  fieldSelector?: string;
  /** List as of this revision (Gone when compacted). Omit for the latest. */
  resourceVersion?: string;
  /** At most this many items; the rest through `continue` (Kubernetes' chunking). */
  limit?: number;
  continue?: string;
}

export interface ObjectList<T = KObject> {
  items: T[];
  /** The revision the list was read at: start a watch from here. */
  resourceVersion: string;
  /** Set when `limit` cut the list: pass it back as `continue`. */
  continue?: string;
}

export interface WatchOptions extends ListOptions {
  /** Deliver every event after this revision. Omit or "0" for "ADDED for every current object, then changes". */
  resourceVersion?: string;
  allowBookmarks?: boolean;
}

export interface StoreWatch {
  stop(): void;
}

export interface CreateOptions {
  /** Validate and answer as if created, store nothing (`dryRun=All`). */
  dryRun?: boolean;
  /** Skip schema validation (an in-process component's Event, trusted-writes.ts); the store's name checks still run. */
  skipValidation?: boolean;
}

export interface UpdateOptions {
  /**
   * `status` writes only status (kinds with a status subresource); `finalize` writes only a
   * namespace's spec.finalizers (what the namespace controller does once the namespace is empty).
   */
  subresource?: "status" | "finalize";
  /** Skip validation of the result (a controller writing status it owns; tests setting up odd states). */
  skipValidation?: boolean;
  /** Validate and answer as if updated, store nothing (`dryRun=All`). */
  dryRun?: boolean;
}

export interface DeleteOptions {
  /** 0 deletes a pod at once (force); omitted uses the object's own (pods: spec.terminationGracePeriodSeconds). */
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  /**
   * What happens to the object's dependents (objects whose ownerReferences name it), for the
   * kinds in `propagationPolicyKinds`: Foreground keeps the object (finalizer
   * `foregroundDeletion`) until the garbage collector has deleted its blocking dependents; Orphan
   * keeps it (finalizer `orphan`) until the collector has removed the dependents' references to
   * it; Background (the default) removes it now and the collector deletes the dependents after.
   */
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
  /** Answer as if deleted, store nothing (`dryRun=All`). */
  dryRun?: boolean;
}

export interface Store {
  readonly backendKind: string;
  create<T extends KObject>(type: ResourceType, object: T, options?: CreateOptions): Promise<T>;
  get<T extends KObject>(type: ResourceType, namespace: string, name: string): Promise<T>;
  list<T extends KObject>(type: ResourceType, options?: ListOptions): Promise<ObjectList<T>>;
  update<T extends KObject>(type: ResourceType, object: T, options?: UpdateOptions): Promise<T>;
  /**
   * Deletes, or starts a graceful deletion. Returns the object as it now is: with
   * deletionTimestamp while it waits for finalizers or its grace period, or as it was at removal.
   */
  delete<T extends KObject>(type: ResourceType, namespace: string, name: string, options?: DeleteOptions): Promise<T>;
  watch<T extends KObject>(
    type: ResourceType,
    options: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
  ): Promise<StoreWatch>;
  /**
   * The `pods/binding` subresource: sets spec.nodeName (only when empty, else Conflict) and the
   * PodScheduled condition; returns the bound pod. See pod-binding.ts.
   */
  bindPod(namespace: string, name: string, nodeName: string, options?: BindPodOptions): Promise<Pod>;
  /** The revision of the last write. */
  revision(): number;
  close(): Promise<void>;
}
