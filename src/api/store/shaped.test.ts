import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type KeyNode, newKeyTrie, nextKeyNode, nodesLeft, shapedObject } from "./shaped.ts";

const trie = newKeyTrie();

function walk(root: KeyNode, keys: string[]): KeyNode | undefined {
  let node: KeyNode | undefined = root;
  for (const key of keys) node = node && nextKeyNode(node, key);
  return node;
}

function build(keys: string[], values: unknown[], root = trie): Record<string, unknown> {
  return shapedObject(walk(root, keys), keys, values);
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
    assert.equal(walk(newKeyTrie(), keys), undefined, "past 64 fields no literal is made");
    assert.notEqual(walk(newKeyTrie(), keys.slice(0, 64)), undefined);
  });

  it("keeps no key longer than 64 characters, and still builds the object", () => {
    const root = newKeyTrie();
    const long = "x".repeat(65);
    assert.equal(walk(root, ["name", long]), undefined);
    assert.equal(nodesLeft(root), 4999, "only the short key took a node");
    assert.deepEqual(build(["name", long], ["a", 1], root), { name: "a", [long]: 1 });
    assert.notEqual(walk(root, ["name", "x".repeat(64)]), undefined);
  });

  it("stops growing when its trie is full, and builds the same objects field by field", () => {
    const root = newKeyTrie(3);
    const lists = [["a"], ["b"], ["c"], ["d", "e"], ["a", "z"]];
    for (const keys of lists) {
      const object = build(
        keys,
        keys.map((key) => `${key}!`),
        root,
      );
      assert.deepEqual(
        Object.entries(object),
        keys.map((key) => [key, `${key}!`]),
      );
    }
    assert.equal(nodesLeft(root), 0);
    assert.equal(walk(root, ["d"]), undefined);
    assert.notEqual(walk(root, ["a"]), undefined);
  });
});
