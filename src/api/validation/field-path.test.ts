import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { child, index, key } from "./field-path.ts";

describe("field paths", () => {
  it("writes paths as Kubernetes' field.Path prints them", () => {
    assert.equal(child("", "metadata"), "metadata");
    assert.equal(child("metadata", "labels"), "metadata.labels");
    assert.equal(child("spec", "resources", "requests"), "spec.resources.requests");
    assert.equal(child("", "metadata", "name"), "metadata.name");
    assert.equal(index(child("spec", "volumes"), 0), "spec.volumes[0]");
    assert.equal(key(child("spec.resources", "requests"), "storage"), "spec.resources.requests[storage]");
    assert.equal(
      child(index("spec.volumes", 2), "persistentVolumeClaim", "claimName"),
      "spec.volumes[2].persistentVolumeClaim.claimName",
    );
  });
});
