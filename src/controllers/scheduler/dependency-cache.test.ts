import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DependencyCache } from "./dependency-cache.ts";

/** A cache over a mutable table, counting how often each key is computed. */
function tableCache(table: Map<string, number>) {
  const cache = new DependencyCache<number>();
  const computed: string[] = [];
  const sum = (key: string, names: readonly string[]) =>
    cache.get(key, (read) => {
      computed.push(key);
      let total = 0;
      for (const name of names) {
        read(name);
        total += table.get(name) ?? 0;
      }
      return total;
    });
  return { cache, computed, sum };
}

describe("DependencyCache", () => {
  it("computes a key once and serves it until something it read changes", () => {
    const table = new Map([
      ["a", 1],
      ["b", 2],
    ]);
    const { cache, computed, sum } = tableCache(table);
    assert.equal(sum("node-1", ["a", "b"]), 3);
    assert.equal(sum("node-1", ["a", "b"]), 3);
    assert.deepEqual(computed, ["node-1"]);
    table.set("b", 20);
    cache.changed("b");
    assert.equal(sum("node-1", ["a", "b"]), 21);
    assert.deepEqual(computed, ["node-1", "node-1"]);
  });

  it("drops only the keys that read the changed dependency", () => {
    const table = new Map([
      ["a", 1],
      ["b", 2],
    ]);
    const { cache, computed, sum } = tableCache(table);
    sum("node-1", ["a"]);
    sum("node-2", ["b"]);
    table.set("a", 10);
    cache.changed("a");
    assert.equal(sum("node-1", ["a"]), 10);
    assert.equal(sum("node-2", ["b"]), 2);
    assert.deepEqual(computed, ["node-1", "node-2", "node-1"]);
  });

  it("tracks a dependency that was missing when read, so its appearance is seen", () => {
    const table = new Map<string, number>();
    const { cache, sum } = tableCache(table);
    assert.equal(sum("node-1", ["claim"]), 0);
    table.set("claim", 5);
    cache.changed("claim");
    assert.equal(sum("node-1", ["claim"]), 5);
  });

  it("recomputes an invalidated key, and forgets what the dropped entry read", () => {
    const table = new Map([["a", 1]]);
    const { cache, computed, sum } = tableCache(table);
    sum("node-1", ["a"]);
    cache.invalidate("node-1");
    assert.equal(cache.size, 0);
    // Recomputed from other inputs: a change to its old dependency no longer drops it.
    sum("node-1", []);
    cache.changed("a");
    sum("node-1", []);
    assert.deepEqual(computed, ["node-1", "node-1"]);
  });

  it("caches nothing when the computation throws, and clear drops everything", () => {
    const cache = new DependencyCache<number>();
    assert.throws(() =>
      cache.get("node-1", () => {
        throw new Error("lookup failed");
      }),
    );
    assert.equal(cache.size, 0);
    cache.get("node-1", () => 1);
    cache.get("node-2", () => 2);
    cache.clear();
    assert.equal(cache.size, 0);
    assert.equal(
      cache.get("node-1", () => 7),
      7,
    );
  });
});
