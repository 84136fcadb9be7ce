import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { problemsOf } from "./testing/test-support.ts";

describe("Namespace", () => {
  it("accepts a namespace with the standard finalizer", () => {
    assert.deepEqual(
      problemsOf("Namespace", { metadata: { name: "sock-shop" }, spec: { finalizers: ["kubernetes"] } }),
      [],
    );
  });

  it("refuses an unqualified custom finalizer", () => {
    assert.deepEqual(problemsOf("Namespace", { metadata: { name: "sock-shop" }, spec: { finalizers: ["cleanup"] } }), [
      'spec.finalizers: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });

  it("keeps its name on update", () => {
    const old = { metadata: { name: "sock-shop" } };
    assert.deepEqual(problemsOf("Namespace", { metadata: { name: "shop" } }, old), [
      'metadata.name: Invalid value: "shop": field is immutable',
    ]);
  });
});
