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

describe("referenceTo", () => {
  it("writes a container's reference with its fields in the order Kubernetes prints them", () => {
    // The recorder matches a reference against partReferenceFields by position: the two must agree.
    assert.equal(
      JSON.stringify(referenceTo(pod, "spec.containers{app}")),
      '{"kind":"Pod","namespace":"default","name":"app-0","uid":"0b6c7a1e-0000-4000-8000-000000000001",' +
        '"apiVersion":"v1","resourceVersion":"82","fieldPath":"spec.containers{app}"}',
    );
  });

  it("leaves out the fields the object does not have", () => {
    assert.equal(
      JSON.stringify(referenceTo({ kind: "Node", metadata: { name: "node-1" } })),
      '{"kind":"Node","name":"node-1","apiVersion":"v1"}',
    );
  });
});
