import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "./rng.ts";

function draws(rng: Rng, count: number): number[] {
  return Array.from({ length: count }, () => rng.nextUint32());
}

describe("Rng sequence", () => {
  it("matches the xoshiro128** reference implementation from a known state", () => {
    // Produced by Blackman & Vigna's xoshiro128starstar.c with s = {1, 2, 3, 4}.
    assert.deepEqual(draws(new Rng(0, [1, 2, 3, 4]), 6), [11520, 0, 5927040, 70819200, 2031721883, 1637235492]);
  });

  it("repeats the same sequence for the same seed and differs for another", () => {
    assert.deepEqual(draws(new Rng(42), 20), draws(new Rng(42), 20));
    assert.notDeepEqual(draws(new Rng(42), 20), draws(new Rng(43), 20));
    assert.notDeepEqual(draws(new Rng(0), 20), draws(new Rng(2 ** 32), 20), "the high seed bits must count");
  });

  it("rejects seeds that are not safe integers", () => {
    assert.throws(() => new Rng(1.5), /seed must be a safe integer, got 1.5/);
    assert.throws(() => new Rng(0, [1, 2, 3, -1]), /startState\[3\] must be a 32-bit unsigned integer/);
  });

  it("keeps floats in [0, 1) and spreads integers evenly over the range", () => {
    const rng = new Rng(7);
    const counts = new Array<number>(10).fill(0);
    for (let draw = 0; draw < 20_000; draw++) {
      const value = rng.next();
      assert.ok(value >= 0 && value < 1);
      const bucket = rng.int(0, 9);
      counts[bucket] = (counts[bucket] as number) + 1;
    }
    for (const count of counts) assert.ok(count > 1_800 && count < 2_200, `bucket count ${count} is far from 2000`);
  });

  it("validates int bounds and supports single-value and negative ranges", () => {
    const rng = new Rng(1);
    assert.equal(rng.int(5, 5), 5);
    for (let draw = 0; draw < 100; draw++) {
      const value = rng.int(-3, 3);
      assert.ok(value >= -3 && value <= 3 && Number.isInteger(value));
    }
    assert.throws(() => rng.int(3, 2), /min <= maxInclusive, got min=3 maxInclusive=2/);
    assert.throws(() => rng.int(0, 2 ** 40), /exceeds 2\^32/);
  });
});

describe("Rng helpers", () => {
  it("chance honours the extremes and rejects probabilities outside [0, 1]", () => {
    const rng = new Rng(3);
    for (let draw = 0; draw < 100; draw++) {
      assert.equal(rng.chance(0), false);
      assert.equal(rng.chance(1), true);
    }
    const hits = Array.from({ length: 10_000 }, () => rng.chance(0.25)).filter(Boolean).length;
    assert.ok(hits > 2_300 && hits < 2_700, `${hits} hits for p=0.25`);
    assert.throws(() => rng.chance(1.5), /probability must be within \[0, 1\], got 1.5/);
  });

  it("picks only from the array and refuses an empty one", () => {
    const rng = new Rng(4);
    const items = ["a", "b", "c"];
    const seen = new Set(Array.from({ length: 100 }, () => rng.pick(items)));
    assert.deepEqual([...seen].sort(), items);
    assert.throws(() => rng.pick([]), /cannot pick from an empty array/);
  });

  it("shuffles into a permutation without touching the input", () => {
    const rng = new Rng(5);
    const items = Array.from({ length: 50 }, (_, index) => index);
    const shuffled = rng.shuffle(items);
    assert.deepEqual(
      items,
      Array.from({ length: 50 }, (_, index) => index),
    );
    assert.notDeepEqual(shuffled, items);
    assert.deepEqual(
      [...shuffled].sort((a, b) => a - b),
      items,
    );
  });

  it("draws RFC 4122 version 4 UUIDs, reproducibly and without repeats", () => {
    const rng = new Rng(9);
    const drawn = Array.from({ length: 1_000 }, () => rng.uuid());
    for (const uuid of drawn)
      assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(new Set(drawn).size, drawn.length);
    assert.equal(new Rng(9).uuid(), drawn[0]);
  });

  it("draws the same UUIDs from a seed as it always has, so a seed's uids stay the same across versions", () => {
    const rng = new Rng(9);
    assert.equal(rng.uuid(), "9deaa896-ef04-4f31-a763-3bd5f0a826fc");
    assert.equal(rng.uuid(), "53784d95-f8eb-4812-88bd-e25f1ed450a9");
  });

  it("draws hex strings of two characters per byte", () => {
    const rng = new Rng(10);
    assert.match(rng.hex(5), /^[0-9a-f]{10}$/);
    assert.equal(rng.hex(0), "");
    assert.equal(new Rng(10).hex(32).slice(0, 10), new Rng(10).hex(5));
  });
});

describe("Rng streams", () => {
  it("gives the same stream for the same seed and name", () => {
    assert.deepEqual(draws(new Rng(11).stream("uids"), 10), draws(new Rng(11).stream("uids"), 10));
  });

  it("gives different names and different seeds different streams", () => {
    const root = new Rng(11);
    assert.notDeepEqual(draws(root.stream("uids"), 10), draws(root.stream("faults"), 10));
    assert.notDeepEqual(draws(root.stream("uids"), 10), draws(new Rng(12).stream("uids"), 10));
    assert.notDeepEqual(draws(root.stream("uids"), 10), draws(new Rng(11), 10), "a stream must not replay its parent");
  });

  it("leaves a stream's draws unchanged by draws on the parent or on sibling streams", () => {
    const undisturbed = draws(new Rng(21).stream("a"), 10);
    const root = new Rng(21);
    draws(root, 37);
    const sibling = root.stream("b");
    draws(sibling, 100);
    assert.deepEqual(draws(root.stream("a"), 10), undisturbed);
  });

  it("derives nested streams from the path of names", () => {
    const nested = draws(new Rng(31).stream("node-1").stream("mount"), 5);
    assert.deepEqual(draws(new Rng(31).stream("node-1").stream("mount"), 5), nested);
    assert.notDeepEqual(draws(new Rng(31).stream("node-2").stream("mount"), 5), nested);
    assert.equal(new Rng(31).stream("x").seed, 31);
  });
});
