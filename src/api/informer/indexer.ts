/**
 * An informer's cache: objects by key (`namespace/name`, or `name` for cluster-scoped kinds) plus
 * named secondary indexes, as client-go's `cache.Indexer`. Indexes are kept up to date on every
 * add, update and delete, so a lookup costs O(result) and never scans the cache.
 *
 * The cache stores the frozen objects it is given and hands the same references back: readers must
 * not change them (copy with `clone` first).
 */
import type { ApiObject } from "../client/client.ts";
import { objectKey } from "../objects.ts";

/** The values an object is filed under in one index (client-go's `IndexFunc`); empty for none. */
export type IndexFunc<T> = (object: T) => readonly string[];

/**
 * Index functions that read nothing but the object's `spec` and its key (namespace and name); see
 * `readsOnlySpec`. A WeakSet, so marking a function keeps nothing alive.
 */
const specOnlyIndexFuncs = new WeakSet<object>();

/**
 * Marks `indexFunc` as reading only `spec` and the object's namespace and name. When both versions
 * of an object hold the very same spec object, such a function reads the same fields twice and gives
 * the same values, so the Indexer skips it: the skip is exact, not a guess. It pays because the store
 * shares an unchanged spec between versions and most updates are status writes.
 * Mark nothing that reads status, labels, annotations or deletionTimestamp: its index would go stale
 * without a word.
 */
export function readsOnlySpec<F extends IndexFunc<never>>(indexFunc: F): F {
  specOnlyIndexFuncs.add(indexFunc);
  return indexFunc;
}

/** The `spec` of an object that may have one. */
function specOf(object: ApiObject): unknown {
  return (object as { spec?: unknown }).spec;
}

/** Every object is filed by namespace, so a namespace listing is an index lookup. */
export const namespaceIndexName = "namespace";

const indexNamespace: IndexFunc<ApiObject> = (object) => [object.metadata?.namespace ?? ""];

/**
 * index value → keys of the objects filed under it: the key itself while there is one, a Set from
 * the second on. Most buckets hold one object (a claim's pod, a claim's volume, a volume's
 * attachment), and a Set of one is a hash table held per bucket, where the key string is already
 * held by the object's entry and costs nothing more.
 * A Set shrunk back to one key becomes the key again; either way the keys keep insertion order.
 */
type Bucket = string | Set<string>;
type Index = Map<string, Bucket>;

/** One named index, kept in a list beside the maps so each write walks an array, not map entries. */
interface IndexEntry<T> {
  readonly indexFunc: IndexFunc<T>;
  readonly index: Index;
  /**
   * The namespace index: an object's key holds its namespace, so an update of a cached object never
   * moves it there, and upsert skips it (two value arrays fewer on every update of every informer).
   */
  readonly fixedPerKey: boolean;
  /** Marked with `readsOnlySpec`: an update that keeps the same spec object leaves it as it is. */
  readonly specOnly: boolean;
}

const noValues: readonly string[] = [];

export class Indexer<T extends ApiObject> {
  private readonly items = new Map<string, T>();
  private readonly indexFuncs = new Map<string, IndexFunc<T>>();
  private readonly indexes = new Map<string, Index>();
  private readonly indexList: IndexEntry<T>[] = [];

  constructor(indexers: Readonly<Record<string, IndexFunc<T>>> = {}) {
    this.addIndex(namespaceIndexName, indexNamespace);
    for (const [name, indexFunc] of Object.entries(indexers)) this.addIndex(name, indexFunc);
  }

  get size(): number {
    return this.items.size;
  }

  /**
   * Adds an index. Objects already cached are filed at once (one pass over the cache); later
   * changes keep it current. Adding a name twice is a programming error and throws.
   */
  addIndex(name: string, indexFunc: IndexFunc<T>): void {
    if (this.indexFuncs.has(name)) throw new Error(`Indexer: an index named "${name}" already exists`);
    const index: Index = new Map();
    this.indexFuncs.set(name, indexFunc);
    this.indexes.set(name, index);
    this.indexList.push({
      indexFunc,
      index,
      fixedPerKey: indexFunc === indexNamespace,
      specOnly: specOnlyIndexFuncs.has(indexFunc),
    });
    for (const [key, object] of this.items) fileUnder(index, indexFunc(object), key);
  }

  /**
   * Adds the index unless this very function is already registered under `name`, so every
   * component sharing an informer can register the indexes it needs without checking first.
   * A different function under a taken name is still a programming error and throws.
   */
  ensureIndex(name: string, indexFunc: IndexFunc<T>): void {
    if (this.indexFuncs.get(name) !== indexFunc) this.addIndex(name, indexFunc);
  }

  hasIndex(name: string): boolean {
    return this.indexFuncs.has(name);
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  has(key: string): boolean {
    return this.items.has(key);
  }

  /** Every cached object, in insertion order. O(n): for listings and resync, never inside a per-object loop. */
  listAll(): T[] {
    return [...this.items.values()];
  }

  keys(): IterableIterator<string> {
    return this.items.keys();
  }

  /** The objects filed under `value` in index `name`. O(result). */
  byIndex(name: string, value: string): T[] {
    const keys = this.indexNamed(name).get(value);
    if (keys === undefined) return [];
    if (typeof keys === "string") {
      const object = this.items.get(keys);
      return object === undefined ? [] : [object];
    }
    const objects: T[] = [];
    for (const key of keys) {
      const object = this.items.get(key);
      if (object !== undefined) objects.push(object);
    }
    return objects;
  }

  /** The keys filed under `value` in index `name`, without the objects. O(result). */
  indexKeys(name: string, value: string): string[] {
    const keys = this.indexNamed(name).get(value);
    if (keys === undefined) return [];
    return typeof keys === "string" ? [keys] : [...keys];
  }

  /** How many objects are filed under `value` in index `name`. O(1). */
  countByIndex(name: string, value: string): number {
    const keys = this.indexNamed(name).get(value);
    if (keys === undefined) return 0;
    return typeof keys === "string" ? 1 : keys.size;
  }

  /** Adds or replaces the object under its key; returns the object it replaced. */
  upsert(object: T): T | undefined {
    const key = objectKey(object);
    const previous = this.items.get(key);
    this.items.set(key, object);
    if (previous === undefined) {
      for (const entry of this.indexList) fileUnder(entry.index, entry.indexFunc(object), key);
      return previous;
    }
    const sameSpec = specOf(previous) === specOf(object);
    for (const entry of this.indexList) {
      if (entry.fixedPerKey || (sameSpec && entry.specOnly)) continue;
      reindex(entry.index, key, entry.indexFunc(previous), entry.indexFunc(object));
    }
    return previous;
  }

  /** Removes the object stored under `key`; returns it (undefined when absent). */
  delete(key: string): T | undefined {
    const previous = this.items.get(key);
    if (previous === undefined) return undefined;
    this.items.delete(key);
    for (const entry of this.indexList) reindex(entry.index, key, entry.indexFunc(previous), noValues);
    return previous;
  }

  private indexNamed(name: string): Index {
    const index = this.indexes.get(name);
    if (index === undefined) {
      const known = [...this.indexes.keys()].join(", ");
      throw new Error(`Indexer: no index named "${name}" (known indexes: ${known})`);
    }
    return index;
  }
}

function reindex(index: Index, key: string, oldValues: readonly string[], newValues: readonly string[]): void {
  if (sameValues(oldValues, newValues)) return;
  for (const value of oldValues) {
    if (!newValues.includes(value)) unfile(index, value, key);
  }
  fileUnder(index, newValues, key);
}

function fileUnder(index: Index, values: readonly string[], key: string): void {
  for (const value of values) {
    const keys = index.get(value);
    if (keys === undefined) index.set(value, key);
    else if (typeof keys !== "string") keys.add(key);
    else if (keys !== key) index.set(value, new Set([keys, key]));
  }
}

/** Removes `key` from one bucket, and the bucket itself once empty, so the index never holds dead values. */
function unfile(index: Index, value: string, key: string): void {
  const keys = index.get(value);
  if (keys === undefined) return;
  if (typeof keys === "string") {
    if (keys === key) index.delete(value);
    return;
  }
  // A Set bucket holds two keys or more (fileUnder makes one from the second key, and this turns it
  // back into the key at one), so one delete leaves at least one key: never an empty bucket.
  keys.delete(key);
  if (keys.size === 1) index.set(value, keys.values().next().value as string);
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
