/**
 * SmallMap behaves as a Map: the same answers and the same order after any sequence of sets,
 * deletes and clears (a seeded random walk compared with a Map, step by step), and iteration
 * that sees entries added or deleted while it runs as a Map's does.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "./rng.ts";
import { SmallMap } from "./small-map.ts";

function snapshot(map: Map<string, number>): [string, number][] {
  return [...map];
}

describe("SmallMap", () => {
  it("answers and orders as a Map through a random walk of sets, deletes and clears", () => {
    const rng = new Rng(18);
    const keys = ["a", "b", "c", "d"];
    for (let walk = 0; walk < 200; walk++) {
      const expected = new Map<string, number>();
      const actual = new SmallMap<string, number>();
      for (let step = 0; step < 30; step++) {
        const key = rng.pick(keys);
        const roll = rng.int(0, 19);
        if (roll < 10) assert.equal(actual.set(key, step), actual);
        if (roll < 10) expected.set(key, step);
        else if (roll < 19) assert.equal(actual.delete(key), expected.delete(key));
        else {
          actual.clear();
          expected.clear();
        }
        assert.deepEqual(snapshot(actual), snapshot(expected), `walk ${walk}, step ${step}`);
        assert.equal(actual.size, expected.size);
        for (const probe of keys) {
          assert.equal(actual.has(probe), expected.has(probe));
          assert.equal(actual.get(probe), expected.get(probe));
        }
      }
    }
  });

  it("puts a key deleted and set again last, and keeps a replaced value in its place", () => {
    const map = new SmallMap<string, number>([
      ["pod-a", 1],
      ["pod-b", 2],
    ]);
    map.set("pod-a", 3);
    assert.deepEqual([...map.keys()], ["pod-a", "pod-b"]);
    map.delete("pod-a");
    map.set("pod-a", 4);
    assert.deepEqual(
      [...map.entries()],
      [
        ["pod-b", 2],
        ["pod-a", 4],
      ],
    );
    assert.deepEqual([...map.values()], [2, 4]);
  });

  it("visits entries added during iteration and skips those deleted before their turn", () => {
    for (const make of [() => new Map<string, number>(), () => new SmallMap<string, number>()]) {
      const map = make();
      map.set("first", 1).set("second", 2).set("third", 3);
      const seen: string[] = [];
      for (const [key] of map) {
        seen.push(key);
        if (key === "first") {
          map.delete("first");
          map.delete("second");
          map.set("fourth", 4);
        }
      }
      assert.deepEqual(seen, ["first", "third", "fourth"], map.constructor.name);
    }
  });
});
