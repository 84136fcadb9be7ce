import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LruCache } from "./lru-cache.ts";

describe("LruCache", () => {
  it("forgets the least recently used entry when full", () => {
    const cache = new LruCache<number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    assert.equal(cache.get("a"), 1, "reading a makes b the least recently used");
    cache.set("c", 3);
    assert.equal(cache.get("b"), undefined);
    assert.equal(cache.get("a"), 1);
    assert.equal(cache.get("c"), 3);
    assert.equal(cache.size, 2);
  });

  it("rejects a bound that is not a positive integer", () => {
    assert.throws(() => new LruCache(0), /maxEntries must be a positive integer, got 0/);
  });
});
