/**
 * The key-value layer under the Store: an ordered map from key to object with one global,
 * strictly increasing revision (etcd's model). Backends: memory, SQLite, later etcd. The
 * Kubernetes semantics (uid, graceful deletion, status subresource, selectors) live in
 * `store.ts` above this interface, once for every backend.
 *
 * Keys look like `/registry/<plural>/<namespace>/<name>` or `/registry/<plural>/<name>`.
 * Objects handed to a backend become its property: it stamps `metadata.resourceVersion` with the
 * write's revision and deep-freezes them, and every reader shares that frozen copy.
 */
import type { KObject } from "../objects.ts";

export interface BackendEntry {
  key: string;
  /** Frozen; `metadata.resourceVersion` is `String(modRevision)`. */
  object: KObject;
  createRevision: number;
  modRevision: number;
}

export interface BackendEvent {
  type: "put" | "delete";
  key: string;
  revision: number;
  /** After the write (for delete: the object as it was deleted, stamped with the delete revision). */
  object: KObject;
  /** Before the write; undefined for a create. */
  previous: KObject | undefined;
  /** The key's create revision (of the object written, or of the one deleted). */
  createRevision: number;
}

export interface BackendWatch {
  stop(): void;
  /**
   * Every event under the prefix with a revision up to this one has been delivered (etcd's progress
   * notification): a watch on a quiet prefix still moves forward, which BOOKMARK events report.
   */
  progressRevision(): number;
}

/**
 * A delivery hint for a watch whose consumer only cares about objects with one field value (a
 * kubelet's `spec.nodeName=node-1`): the backend may skip events where neither the object nor its
 * previous version has `read(object) === value`. Backends that cannot route ignore it; the
 * consumer filters anyway. This is what keeps 5,000 node watches from costing 5,000 checks per
 * pod write (Kubernetes' watch cache "triggers").
 */
export interface WatchRoute {
  /** Identifies `read` (the field path); routes with the same name must use the same reader. */
  name: string;
  value: string;
  read: (object: KObject) => string;
}

export interface BackendWatchOptions {
  route?: WatchRoute;
}

/** How a create or update is stored. */
export interface BackendWriteOptions {
  /**
   * Remove the key this many seconds after this write, unless a later write comes first (etcd: the
   * put is attached to a lease of this TTL). The removal is an ordinary delete for watchers. A
   * later write without a TTL keeps the key for good. kube-apiserver gives Events `--event-ttl`.
   */
  ttlSeconds?: number;
}

/** One page of a list: keys from `startKey` (inclusive) on, at most `limit` of them. */
export interface BackendPage {
  startKey?: string;
  limit?: number;
}

export interface BackendList {
  entries: BackendEntry[];
  /** The revision the list was read at. */
  revision: number;
  /** True when `limit` cut the list short: more keys under the prefix follow the last entry. */
  more: boolean;
}

export interface KVBackend {
  /** `memory`, `sqlite` or `etcd`, for messages and benchmarks. */
  readonly kind: string;
  /** The revision of the last write (0 for an empty store). */
  revision(): number;
  /** The oldest revision a watch or a list may still start from. */
  compactedRevision(): number;
  get(key: string): Promise<BackendEntry | undefined>;
  /**
   * Every entry whose key starts with `prefix`, in key order, as of `atRevision` (default: now),
   * optionally one page of them. Throws Gone when `atRevision` is older than the compacted revision
   * and Timeout ("Too large resource version") when it is newer than the last write.
   */
  list(prefix: string, atRevision?: number, page?: BackendPage): Promise<BackendList>;
  /** Fails with AlreadyExists-like `BackendConflict` when the key exists. */
  create(key: string, object: KObject, options?: BackendWriteOptions): Promise<BackendEntry>;
  /** Fails with `BackendConflict` when the key's modRevision is not `expectedModRevision`. */
  update(
    key: string,
    object: KObject,
    expectedModRevision: number,
    options?: BackendWriteOptions,
  ): Promise<BackendEntry>;
  /** Fails with `BackendConflict` when the key is absent or its modRevision differs. */
  delete(key: string, expectedModRevision: number): Promise<BackendEntry>;
  /**
   * Delivers every event with revision > `fromRevision` under `prefix`, in revision order, then
   * every later one as it happens. Delivery is asynchronous (never inside the write call).
   * Throws Gone when `fromRevision` is older than the compacted revision.
   */
  watch(
    prefix: string,
    fromRevision: number,
    onEvents: (events: readonly BackendEvent[]) => void,
    options?: BackendWatchOptions,
  ): BackendWatch;
  /** Forgets history up to `revision` (watches and lists from older revisions become Gone). */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}

/** A precondition failed: the key exists (create) or its revision moved on (update, delete). */
export class BackendConflict extends Error {
  readonly key: string;
  readonly current: BackendEntry | undefined;
  constructor(key: string, current: BackendEntry | undefined) {
    super(current ? `key ${key} is at revision ${current.modRevision}` : `key ${key} does not exist`);
    this.name = "BackendConflict";
    this.key = key;
    this.current = current;
  }
}
