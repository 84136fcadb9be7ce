/**
 * The Store: Kubernetes API semantics over a KVBackend. This is the contract every component
 * writes against (through a Client); the API server serves it over HTTP.
 *
 * Semantics (as kube-apiserver's generic registry):
 * - create: validates, fills uid, creationTimestamp (from the Clock), generateName, namespace
 *   defaulting; resourceVersion is the global revision of the write.
 * - update: a stale `metadata.resourceVersion` gives Conflict; an empty one means "unconditional".
 *   The main resource cannot change status, the status subresource cannot change anything but
 *   status (and the metadata Kubernetes lets it touch), for kinds that have a status subresource.
 * - delete: an object with finalizers or a grace period gets deletionTimestamp (and
 *   deletionGracePeriodSeconds) and stays; it goes when the last finalizer is removed and, for
 *   pods, when deleted again with grace period 0.
 * - list/watch: by namespace, label selector and field selector; watch from a revision, Gone
 *   (410) when it is older than the compaction window; BOOKMARK events when asked for.
 */
import type { KObject } from "../objects.ts";
import type { ResourceType } from "../resources.ts";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

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

export interface UpdateOptions {
  /** `status` writes only status (kinds with a status subresource). */
  subresource?: "status";
  /** Skip validation of the result (a controller writing status it owns; tests setting up odd states). */
  skipValidation?: boolean;
}

export interface DeleteOptions {
  /** 0 deletes a pod at once (force); omitted uses the object's own (pods: spec.terminationGracePeriodSeconds). */
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
}

export interface Store {
  readonly backendKind: string;
  create<T extends KObject>(type: ResourceType, object: T): Promise<T>;
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
  /** The revision of the last write. */
  revision(): number;
  close(): Promise<void>;
}
