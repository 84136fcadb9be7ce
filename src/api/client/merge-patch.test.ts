import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyMergePatch, createMergePatch, sameJsonText } from "./merge-patch.ts";

describe("applyMergePatch (RFC 7386)", () => {
  // The examples of RFC 7386 appendix A: target, patch, result.
  const rfcExamples: [unknown, unknown, unknown][] = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [
      ["a", "b"],
      ["c", "d"],
      ["c", "d"],
    ],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [index, [target, patch, expected]] of rfcExamples.entries()) {
    it(`matches RFC 7386 appendix A example ${index + 1}`, () => {
      assert.deepEqual(applyMergePatch(target, patch as Record<string, unknown>), expected);
    });
  }

  it("leaves a frozen target untouched and shares the subtrees the patch did not touch", () => {
    const target = Object.freeze({
      metadata: Object.freeze({ name: "pv-1", labels: Object.freeze({ a: "1" }) }),
      spec: Object.freeze({ capacity: Object.freeze({ storage: "1Gi" }) }),
    });
    const result = applyMergePatch(target, { metadata: { labels: { b: "2" } } });
    assert.deepEqual(result.metadata.labels, { a: "1", b: "2" });
    assert.equal(result.spec, target.spec, "untouched subtree is shared, not copied");
    assert.deepEqual(target.metadata.labels, { a: "1" });
  });

  it("ignores keys whose value is undefined, as JSON would drop them", () => {
    assert.deepEqual(applyMergePatch({ a: 1, b: 2 }, { a: undefined, b: 3 }), { a: 1, b: 3 });
  });
});

describe("createMergePatch", () => {
  it("returns changed keys, null for removed ones and whole arrays", () => {
    const original = { metadata: { labels: { a: "1", gone: "x" } }, spec: { list: [1, 2], same: "s" } };
    const modified = { metadata: { labels: { a: "2" } }, spec: { list: [1, 2, 3], same: "s" } };
    const patch = createMergePatch(original, modified);
    assert.deepEqual(patch, { metadata: { labels: { a: "2", gone: null } }, spec: { list: [1, 2, 3] } });
    assert.deepEqual(applyMergePatch(original, patch), modified);
  });

  it("returns an empty patch for equal objects", () => {
    assert.deepEqual(createMergePatch({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), {});
  });

  it("rejects values that are not objects", () => {
    assert.throws(() => createMergePatch([1], { a: 1 }), /must be JSON objects/);
  });
});

describe("sameJsonText", () => {
  it("is true only for the same JSON text: equal values with fields in the same order", () => {
    assert.equal(sameJsonText({ a: 1, b: [{ c: "x" }] }, { a: 1, b: [{ c: "x" }] }), true);
    assert.equal(sameJsonText({ a: 1, b: 2 }, { b: 2, a: 1 }), false);
    assert.equal(sameJsonText([1, 2], [1, 2, 3]), false);
    assert.equal(sameJsonText({ a: null }, { a: null }), true);
    assert.equal(sameJsonText({ a: 1, b: undefined }, { a: 1 }), false);
    assert.equal(sameJsonText(undefined, []), false);
  });
});
