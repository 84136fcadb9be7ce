import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type KeyNode, newKeyTrie, nextKeyNode, shapedObject } from "./shaped.ts";

const trie = newKeyTrie();

function build(keys: string[], values: unknown[]): Record<string, unknown> {
  let node: KeyNode | undefined = trie;
  for (const key of keys) node = node && nextKeyNode(node, key);
  return shapedObject(node, keys, values);
}

describe("shapedObject", () => {
  it("holds the given fields in the given order, as JSON prints them", () => {
    const object = build(["kind", "apiVersion", "metadata"], ["Pod", "v1", { name: "a" }]);
    assert.equal(JSON.stringify(object), '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}');
    assert.equal(Object.getPrototypeOf(object), Object.prototype);
  });

  it("builds a second object of the same keys with its own values", () => {
    build(["name", "uid"], ["a", "1"]);
    assert.deepEqual(build(["name", "uid"], ["b", "2"]), { name: "b", uid: "2" });
  });

  it("keeps a field named __proto__ as data, leaving the prototype alone", () => {
    const object = build(["a", "__proto__", "b'\"\\"], [1, "x", 2]);
    assert.equal(Object.getPrototypeOf(object), Object.prototype);
    assert.equal(JSON.stringify(object), '{"a":1,"__proto__":"x","b\'\\"\\\\":2}');
  });

  it("builds an object wider than any literal field by field, in order", () => {
    const keys = Array.from({ length: 100 }, (_, i) => `k${i}`);
    const object = build(
      keys,
      keys.map((_, i) => i),
    );
    assert.deepEqual(Object.keys(object), keys);
    assert.equal(object.k99, 99);
  });
});
