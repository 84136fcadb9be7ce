import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalResourceList, differingFields, semanticEqual } from "./semantic-equal.ts";

describe("semanticEqual", () => {
  it("treats a left-out field as its zero value", () => {
    assert.equal(semanticEqual({ readOnly: false, items: [] }, {}), true);
    assert.equal(semanticEqual({ path: "" }, { path: undefined }), true);
  });

  it("still tells an empty source from no source", () => {
    assert.equal(semanticEqual({ emptyDir: {} }, {}), false);
  });

  it("compares lists in order", () => {
    assert.equal(semanticEqual(["a", "b"], ["b", "a"]), false);
    assert.equal(semanticEqual([{ name: "a" }], [{ name: "a", readOnly: false }]), true);
  });

  it("compares quantities by amount once resource lists are canonical", () => {
    const a = canonicalResourceList({ storage: "1Gi", cpu: "0.5" });
    const b = canonicalResourceList({ storage: 1073741824, cpu: "500m" });
    assert.equal(semanticEqual(a, b), true);
    assert.equal(
      semanticEqual(canonicalResourceList({ storage: "1G" }), canonicalResourceList({ storage: "1Gi" })),
      false,
    );
  });

  it("names the fields that differ", () => {
    assert.deepEqual(differingFields({ a: 1, b: 2, c: 3 }, { a: 1, b: 3, d: 4 }, "spec"), [
      "spec.b",
      "spec.c",
      "spec.d",
    ]);
  });
});
