import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { referenceTo, sameReference } from "./object-reference.ts";

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "app-0", namespace: "default", uid: "0b6c7a1e-0000-4000-8000-000000000001", resourceVersion: "82" },
};

describe("sameReference", () => {
  it("holds for two references to the same container of the same pod version", () => {
    assert.equal(
      sameReference(referenceTo(pod, "spec.containers{app}"), referenceTo(pod, "spec.containers{app}")),
      true,
    );
  });

  it("tells apart another field path, another version, or the same fields in another order", () => {
    const container = referenceTo(pod, "spec.containers{app}");
    assert.equal(sameReference(container, referenceTo(pod)), false);
    const later = { ...pod, metadata: { ...pod.metadata, resourceVersion: "83" } };
    assert.equal(sameReference(container, referenceTo(later, "spec.containers{app}")), false);
    const { kind, ...rest } = container;
    assert.equal(sameReference(container, { ...rest, kind }), false, "JSON would print the fields in another order");
  });
});
