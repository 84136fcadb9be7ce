/**
 * A bounded map that forgets its least recently used entry when full (groupcache's `lru.Cache`,
 * which the Kubernetes event correlator keeps its state in). A Map iterates in insertion order, so
 * re-inserting on every read keeps the least recently used entry first.
 */
export class LruCache<V, K = string> {
  private readonly entries = new Map<K, V>();
  readonly maxEntries: number;

  constructor(maxEntries: number) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`LruCache: maxEntries must be a positive integer, got ${maxEntries}`);
    }
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value for `key`, which becomes the most recently used entry. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}
