import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "../../runtime/rng.ts";
import { SortedKeys } from "./sorted-keys.ts";

function keysFrom(set: SortedKeys, start: string, limit = Number.POSITIVE_INFINITY): string[] {
  const found: string[] = [];
  set.forEachFrom(start, (key) => {
    found.push(key);
    return found.length < limit;
  });
  return found;
}

describe("SortedKeys", () => {
  it("keeps keys in order through many random inserts and deletes, across chunk splits", () => {
    const rng = new Rng(7);
    const set = new SortedKeys();
    const model = new Set<string>();
    for (let step = 0; step < 20_000; step++) {
      const key = `/registry/pods/ns-${rng.int(0, 9)}/pod-${rng.int(0, 3000)}`;
      if (rng.chance(0.6)) {
        assert.equal(set.add(key), !model.has(key));
        model.add(key);
      } else {
        assert.equal(set.delete(key), model.has(key));
        model.delete(key);
      }
    }
    const expected = [...model].sort();
    assert.equal(set.size, expected.length);
    assert.deepEqual(keysFrom(set, ""), expected);
  });

  it("reads a range from a start key and stops when asked", () => {
    const set = new SortedKeys();
    for (const key of ["b/2", "a/1", "c/1", "b/1", "b/3"]) set.add(key);
    assert.deepEqual(keysFrom(set, "b/"), ["b/1", "b/2", "b/3", "c/1"]);
    assert.deepEqual(keysFrom(set, "b/2", 2), ["b/2", "b/3"]);
    assert.deepEqual(keysFrom(set, "d"), []);
  });

  it("reports duplicates and missing keys", () => {
    const set = new SortedKeys();
    assert.equal(set.add("x"), true);
    assert.equal(set.add("x"), false);
    assert.equal(set.delete("y"), false);
    assert.equal(set.delete("x"), true);
    assert.equal(set.size, 0);
    assert.deepEqual(keysFrom(set, ""), []);
  });
});
