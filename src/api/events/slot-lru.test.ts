import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "../../runtime/rng.ts";
import { SlotLru } from "./slot-lru.ts";

/** The reference: a Map iterates in insertion order, so re-inserting on use keeps the LRU entry first. */
class MapLru {
  readonly entries = new Map<number, { n: number; v: string }>();
  constructor(private readonly max: number) {}
  get(key: number): { n: number; v: string } | undefined {
    const found = this.entries.get(key);
    if (found !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, found);
    }
    return found;
  }
  set(key: number, value: { n: number; v: string }): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as number);
  }
}

describe("SlotLru", () => {
  it("forgets the least recently used entry when full", () => {
    const cache = new SlotLru<string>(2, { numbers: 1, values: 1 });
    const a = cache.upsert(1).slot;
    cache.setNumber(a, 0, 10);
    cache.setValue(a, 0, "a");
    cache.setValue(cache.upsert(2).slot, 0, "b");
    assert.notEqual(cache.find(1), -1, "reading 1 makes 2 the least recently used");
    const c = cache.upsert(3);
    assert.equal(c.isNew, true);
    assert.equal(cache.value(c.slot, 0), undefined, "a reused row starts cleared");
    assert.equal(cache.number(c.slot, 0), 0);
    assert.equal(cache.find(2), -1);
    assert.equal(cache.value(cache.find(1), 0), "a");
    assert.equal(cache.number(cache.find(1), 0), 10);
    assert.equal(cache.size, 2);
  });

  it("tells an existing key from a new one", () => {
    const cache = new SlotLru<string>(4, { numbers: 0, values: 1 });
    const first = cache.upsert(2 ** 53 - 1);
    assert.deepEqual(cache.upsert(2 ** 53 - 1), { slot: first.slot, isNew: false });
  });

  it("rejects a bound that is not a positive integer", () => {
    assert.throws(() => new SlotLru(0, { numbers: 1, values: 0 }), /maxEntries must be a positive integer, got 0/);
  });

  for (const [max, keySpace] of [
    [1, 3],
    [5, 12],
    [64, 200],
    [300, 2_000],
    // Past 16-bit slot numbers: the 32-bit link arrays.
    [70_000, 3_000],
  ] as const) {
    it(`keeps and evicts exactly what a Map-based LRU does (${max} entries, ${keySpace} keys)`, () => {
      const rng = new Rng(max * 7919 + keySpace);
      const random = () => rng.next();
      const cache = new SlotLru<string>(max, { numbers: 1, values: 1 });
      const reference = new MapLru(max);
      // Keys spread over 53 bits, as the correlator's hashes are, with collisions in the low bits.
      const keyOf = (i: number) => (i % 3 === 0 ? i * 0x1_0000_0000 : i * 2_654_435_761) % 2 ** 53;
      for (let step = 0; step < 20_000; step++) {
        const key = keyOf(Math.floor(random() * keySpace));
        if (random() < 0.4) {
          const slot = cache.find(key);
          const expected = reference.get(key);
          assert.equal(slot === -1, expected === undefined, `step ${step}: presence of ${key}`);
          if (expected !== undefined) {
            assert.equal(cache.number(slot, 0), expected.n, `step ${step}: number of ${key}`);
            assert.equal(cache.value(slot, 0), expected.v, `step ${step}: value of ${key}`);
          }
        } else {
          const { slot } = cache.upsert(key);
          const value = { n: step, v: `v${step}` };
          cache.setNumber(slot, 0, value.n);
          cache.setValue(slot, 0, value.v);
          reference.set(key, value);
        }
        assert.equal(cache.size, reference.entries.size);
      }
      for (const [key, value] of reference.entries) {
        const slot = cache.find(key);
        assert.equal(cache.value(slot, 0), value.v);
      }
    });
  }
});
