/**
 * A bounded least-recently-used cache from number keys (the correlator's 53-bit hashes) to a fixed
 * set of fields per entry, kept in typed arrays instead of a Map of small objects.
 *
 * Why: every recorder (one per kubelet, so thousands of them) keeps three caches of up to 4,096
 * entries (client-go's `maxLruCacheEntries`), and a node's kubelet fills them with a few entries
 * for each pod it ran. As a Map of objects, each entry cost a hash-table slot, a boxed number key
 * and an object with boxed number fields, about 130 bytes; here it is one row of typed arrays
 * (about 24 bytes plus its fields). Eviction is the same as a Map-based LRU's, entry for entry:
 * `find` and `upsert` make an entry the most recently used, and a new key in a full cache evicts
 * the least recently used one.
 *
 * Rows are slots 0..capacity-1; the capacity starts small and doubles up to `maxEntries`, so a cache
 * that holds a few entries costs a few rows. Number fields live in one Float64Array, other values
 * (strings) in one array, both `fields` wide per row. Slot numbers (the recency links and the hash
 * buckets) take 16 bits when `maxEntries` allows, as the correlator's 4,096 does: typed arrays live
 * outside the JavaScript heap, and this halves what they hold.
 */

/** Rows allocated at first; enough for a node with a handful of pods. */
const initialCapacity = 8;
/** The hash table has at least this many buckets per row, so linear probes stay short. */
const bucketsPerRow = 2;
/** Marks an empty bucket (buckets hold slot + 1). */
const emptyBucket = 0;
/** No neighbour in the recency list (and what `find` returns for an absent key). */
const none = -1;
/** Stored for `none` in 16-bit link arrays, which cannot hold -1. */
const noneUint16 = 0xffff;
const twoToThe32 = 0x1_0000_0000;
const hashMultiplier = 0x9e3779b1;

interface SlotLruFields {
  /** Number fields per entry (read and written with `number` / `setNumber`). */
  numbers: number;
  /** Other fields per entry (`value` / `setValue`). */
  values: number;
}

export class SlotLru<V> {
  readonly maxEntries: number;
  private readonly numberFields: number;
  private readonly valueFields: number;
  private capacity = 0;
  private count = 0;
  private keys = new Float64Array(0);
  /** Recency list: `older[slot]` is the entry used just before `slot`, `newer[slot]` the one after. */
  private older: SlotArray = new Int32Array(0);
  private newer: SlotArray = new Int32Array(0);
  private oldest = none;
  private newest = none;
  private buckets: SlotArray = new Int32Array(0);
  /** 16-bit slot numbers fit when every slot + 1 and the `none` marker stay below 2^16. */
  private readonly narrowSlots: boolean;
  private numbers = new Float64Array(0);
  private values: (V | undefined)[] = [];

  constructor(maxEntries: number, fields: SlotLruFields) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`SlotLru: maxEntries must be a positive integer, got ${maxEntries}`);
    }
    this.maxEntries = maxEntries;
    this.numberFields = fields.numbers;
    this.valueFields = fields.values;
    this.narrowSlots = maxEntries < noneUint16;
  }

  get size(): number {
    return this.count;
  }

  /** The slot of `key`, which becomes the most recently used entry; -1 when absent. */
  find(key: number): number {
    const slot = this.slotOf(key);
    if (slot !== none) this.touch(slot);
    return slot;
  }

  /**
   * The slot of `key`, made the most recently used entry: its own if present (`isNew` false), else a
   * fresh one with every field cleared (0 and undefined), evicting the least recently used entry
   * when the cache is full.
   */
  upsert(key: number): { slot: number; isNew: boolean } {
    const existing = this.find(key);
    if (existing !== none) return { slot: existing, isNew: false };
    let slot: number;
    if (this.count === this.maxEntries) {
      slot = this.oldest;
      this.unlink(slot);
      this.removeFromBuckets(slot);
      this.clearFields(slot);
    } else {
      if (this.count === this.capacity) this.grow();
      slot = this.count++;
    }
    this.keys[slot] = key;
    this.addToBuckets(slot);
    this.linkNewest(slot);
    return { slot, isNew: true };
  }

  number(slot: number, field: number): number {
    return this.numbers[slot * this.numberFields + field] as number;
  }

  setNumber(slot: number, field: number, value: number): void {
    this.numbers[slot * this.numberFields + field] = value;
  }

  value(slot: number, field: number): V | undefined {
    return this.values[slot * this.valueFields + field];
  }

  setValue(slot: number, field: number, value: V): void {
    this.values[slot * this.valueFields + field] = value;
  }

  private slotOf(key: number): number {
    const mask = this.buckets.length - 1;
    if (mask < 0) return none;
    for (let b = bucketOf(key, mask); ; b = (b + 1) & mask) {
      const entry = this.buckets[b] as number;
      if (entry === emptyBucket) return none;
      if (this.keys[entry - 1] === key) return entry - 1;
    }
  }

  private touch(slot: number): void {
    if (slot === this.newest) return;
    this.unlink(slot);
    this.linkNewest(slot);
  }

  private unlink(slot: number): void {
    const before = this.link(this.older, slot);
    const after = this.link(this.newer, slot);
    if (before === none) this.oldest = after;
    else this.setLink(this.newer, before, after);
    if (after === none) this.newest = before;
    else this.setLink(this.older, after, before);
  }

  private link(links: SlotArray, slot: number): number {
    const stored = links[slot] as number;
    return this.narrowSlots && stored === noneUint16 ? none : stored;
  }

  private setLink(links: SlotArray, slot: number, to: number): void {
    links[slot] = this.narrowSlots && to === none ? noneUint16 : to;
  }

  private linkNewest(slot: number): void {
    this.setLink(this.older, slot, this.newest);
    this.setLink(this.newer, slot, none);
    if (this.newest === none) this.oldest = slot;
    else this.setLink(this.newer, this.newest, slot);
    this.newest = slot;
  }

  private addToBuckets(slot: number): void {
    const mask = this.buckets.length - 1;
    let b = bucketOf(this.keys[slot] as number, mask);
    while (this.buckets[b] !== emptyBucket) b = (b + 1) & mask;
    this.buckets[b] = slot + 1;
  }

  /** Linear probing's deletion: later entries of the probe run move back so no lookup stops early. */
  private removeFromBuckets(slot: number): void {
    const mask = this.buckets.length - 1;
    let hole = bucketOf(this.keys[slot] as number, mask);
    while (this.buckets[hole] !== slot + 1) hole = (hole + 1) & mask;
    for (let b = (hole + 1) & mask; this.buckets[b] !== emptyBucket; b = (b + 1) & mask) {
      const entry = this.buckets[b] as number;
      const home = bucketOf(this.keys[entry - 1] as number, mask);
      // The entry may fill the hole when its home is not strictly between the hole and its bucket.
      const distanceToEntry = (b - home) & mask;
      const distanceToHole = (hole - home) & mask;
      if (distanceToHole < distanceToEntry) {
        this.buckets[hole] = entry;
        hole = b;
      }
    }
    this.buckets[hole] = emptyBucket;
  }

  private clearFields(slot: number): void {
    this.numbers.fill(0, slot * this.numberFields, (slot + 1) * this.numberFields);
    for (let f = 0; f < this.valueFields; f++) this.values[slot * this.valueFields + f] = undefined;
  }

  private grow(): void {
    const capacity = Math.min(this.maxEntries, Math.max(initialCapacity, this.capacity * 2));
    this.keys = grown(this.keys, new Float64Array(capacity));
    this.older = grown(this.older, this.slotArray(capacity));
    this.newer = grown(this.newer, this.slotArray(capacity));
    this.numbers = grown(this.numbers, new Float64Array(capacity * this.numberFields));
    for (let i = this.values.length; i < capacity * this.valueFields; i++) this.values.push(undefined);
    this.capacity = capacity;
    let bucketCount = 1;
    while (bucketCount < capacity * bucketsPerRow) bucketCount *= 2;
    this.buckets = this.slotArray(bucketCount);
    for (let slot = 0; slot < this.count; slot++) this.addToBuckets(slot);
  }

  private slotArray(length: number): SlotArray {
    return this.narrowSlots ? new Uint16Array(length) : new Int32Array(length);
  }
}

type SlotArray = Int32Array | Uint16Array;

function grown<T extends Float64Array | SlotArray>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** Mixes both halves of a key up to 2^53 into a bucket index. */
function bucketOf(key: number, mask: number): number {
  const low = key >>> 0;
  const high = Math.floor(key / twoToThe32) >>> 0;
  const mixed = Math.imul(low ^ Math.imul(high, hashMultiplier), hashMultiplier);
  return (mixed ^ (mixed >>> 15)) & mask;
}
