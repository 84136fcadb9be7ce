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
}

export interface BackendWatch {
  stop(): void;
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
   * Every entry whose key starts with `prefix`, in key order, as of `atRevision` (default: now).
   * Throws Gone when `atRevision` is older than the compacted revision.
   */
  list(prefix: string, atRevision?: number): Promise<{ entries: BackendEntry[]; revision: number }>;
  /** Fails with AlreadyExists-like `BackendConflict` when the key exists. */
  create(key: string, object: KObject): Promise<BackendEntry>;
  /** Fails with `BackendConflict` when the key's modRevision is not `expectedModRevision`. */
  update(key: string, object: KObject, expectedModRevision: number): Promise<BackendEntry>;
  /** Fails with `BackendConflict` when the key is absent or its modRevision differs. */
  delete(key: string, expectedModRevision: number): Promise<BackendEntry>;
  /**
   * Delivers every event with revision > `fromRevision` under `prefix`, in revision order, then
   * every later one as it happens. Delivery is asynchronous (never inside the write call).
   * Throws Gone when `fromRevision` is older than the compacted revision.
   */
  watch(prefix: string, fromRevision: number, onEvents: (events: readonly BackendEvent[]) => void): BackendWatch;
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
