/**
 * A Map for the many maps that nearly always hold one entry: a volume's pods on a node, a
 * volume's nodes, a pod's containers. A Map costs about 180 bytes before its first entry; this
 * keeps the first entry in two fields and makes a Map only for the second and later ones.
 *
 * It behaves as a Map: entries in insertion order (a replaced value keeps its place, a deleted
 * and re-added key goes last), and iteration sees what changes while it runs as a Map's does.
 * The inline entry is always the oldest: once it is deleted, new entries go to the Map until
 * that is empty too.
 */
export class SmallMap<K, V> implements Map<K, V> {
  private firstKey: K | undefined;
  private firstValue: V | undefined;
  private hasFirst = false;
  private rest: Map<K, V> | undefined;

  constructor(entries?: Iterable<readonly [K, V]>) {
    if (entries !== undefined) for (const [key, value] of entries) this.set(key, value);
  }

  get size(): number {
    return (this.hasFirst ? 1 : 0) + (this.rest?.size ?? 0);
  }

  get [Symbol.toStringTag](): string {
    return "SmallMap";
  }

  has(key: K): boolean {
    return (this.hasFirst && this.firstKey === key) || this.rest?.has(key) === true;
  }

  get(key: K): V | undefined {
    if (this.hasFirst && this.firstKey === key) return this.firstValue;
    return this.rest?.get(key);
  }

  set(key: K, value: V): this {
    if (this.hasFirst && this.firstKey === key) {
      this.firstValue = value;
    } else if (!this.hasFirst && this.rest === undefined) {
      this.firstKey = key;
      this.firstValue = value;
      this.hasFirst = true;
    } else {
      this.rest ??= new Map();
      this.rest.set(key, value);
    }
    return this;
  }

  delete(key: K): boolean {
    if (this.hasFirst && this.firstKey === key) {
      this.hasFirst = false;
      this.firstKey = undefined;
      this.firstValue = undefined;
      if (this.rest?.size === 0) this.rest = undefined;
      return true;
    }
    const rest = this.rest;
    if (rest === undefined || !rest.delete(key)) return false;
    if (rest.size === 0 && !this.hasFirst) this.rest = undefined;
    return true;
  }

  clear(): void {
    this.hasFirst = false;
    this.firstKey = undefined;
    this.firstValue = undefined;
    this.rest?.clear();
    this.rest = undefined;
  }

  forEach(callback: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this) callback.call(thisArg, value, key, this);
  }

  *entries(): MapIterator<[K, V]> {
    if (this.hasFirst) yield [this.firstKey as K, this.firstValue as V];
    // Read after the first entry's turn: entries added meanwhile are seen, as in a Map.
    if (this.rest !== undefined) yield* this.rest;
  }

  *keys(): MapIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }
}
