/**
 * Values computed per key (a node) from objects looked up by name (claims, volumes, classes), kept
 * until something they were computed from changes. A computation names each object it reads (found
 * or not: an object that appears later changes the answer too); a change to one of them drops
 * exactly the entries that read it, and a change to the key's own inputs drops its entry.
 *
 * Why: a scheduling attempt evaluates hundreds of nodes, and each node's answer (the volumes its pods
 * hold) changes far less often than pods are scheduled, so recomputing it per node per pod is almost
 * all waste. The owner must report every change through `invalidate` / `changed`; what it forgets to
 * report is served stale.
 */

interface Entry<V> {
  value: V;
  /** What the computation read, to be unlinked from `readers` when the entry goes. */
  reads: readonly string[];
}

export class DependencyCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  /** Dependency → the keys whose entry read it. */
  private readonly readers = new Map<string, Set<string>>();

  /** How many keys hold a value (for tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The value of `key`: the cached one, or `compute`'s, which must call `read` with every
   * dependency it reads. A computation that throws caches nothing.
   */
  get(key: string, compute: (read: (dependency: string) => void) => V): V {
    const cached = this.entries.get(key);
    if (cached !== undefined) return cached.value;
    const reads: string[] = [];
    const value = compute((dependency) => {
      reads.push(dependency);
    });
    this.entries.set(key, { value, reads });
    for (const dependency of reads) {
      let keys = this.readers.get(dependency);
      if (keys === undefined) {
        keys = new Set();
        this.readers.set(dependency, keys);
      }
      keys.add(key);
    }
    return value;
  }

  /** Drops the value of `key` (its own inputs changed). */
  invalidate(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    for (const dependency of entry.reads) {
      const keys = this.readers.get(dependency);
      if (keys === undefined) continue;
      keys.delete(key);
      if (keys.size === 0) this.readers.delete(dependency);
    }
  }

  /** Drops the value of every key whose computation read `dependency`. */
  changed(dependency: string): void {
    const keys = this.readers.get(dependency);
    if (keys === undefined) return;
    for (const key of [...keys]) this.invalidate(key);
  }

  /** Drops every value. */
  clear(): void {
    this.entries.clear();
    this.readers.clear();
  }
}
