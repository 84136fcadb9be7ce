import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RESOURCES } from "../resources.ts";
import { causesOf, changed, dnsLabelMessage, dnsSubdomainMessage, problemsOf } from "./testing/test-support.ts";

const configMap = {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "settings", namespace: "default" },
  data: {},
};

describe("metadata on create", () => {
  it("accepts a plain namespaced object", () => {
    assert.deepEqual(problemsOf("ConfigMap", configMap), []);
  });

  it("requires a name or a generateName", () => {
    const unnamed = changed(configMap, (copy) => {
      copy.metadata.name = "";
    });
    assert.deepEqual(problemsOf("ConfigMap", unnamed), [
      "metadata.name: Required value: name or generateName is required",
    ]);
    const generated = { ...unnamed, metadata: { generateName: "settings-", namespace: "default" } };
    assert.deepEqual(problemsOf("ConfigMap", generated), []);
  });

  it("checks names with the kind's rule", () => {
    const bad = changed(configMap, (copy) => {
      copy.metadata.name = "Settings";
    });
    assert.deepEqual(problemsOf("ConfigMap", bad), [
      `metadata.name: Invalid value: "Settings": ${dnsSubdomainMessage}`,
    ]);
    const namespace = { metadata: { name: "team.a" } };
    assert.deepEqual(problemsOf("Namespace", namespace), [
      'metadata.name: Invalid value: "team.a": must not contain dots',
    ]);
  });

  it("requires a valid namespace on namespaced kinds and refuses one on cluster-scoped kinds", () => {
    const noNamespace = { metadata: { name: "settings" } };
    assert.deepEqual(problemsOf("ConfigMap", noNamespace), ["metadata.namespace: Required value"]);
    const badNamespace = { metadata: { name: "settings", namespace: "Team_A" } };
    assert.deepEqual(problemsOf("ConfigMap", badNamespace), [
      `metadata.namespace: Invalid value: "Team_A": ${dnsLabelMessage}`,
    ]);
    const node = { metadata: { name: "node-1", namespace: "default" } };
    assert.deepEqual(problemsOf("Node", node), ["metadata.namespace: Forbidden: not allowed on this type"]);
  });

  it("applies the namespace rule of every registered kind", () => {
    for (const type of RESOURCES) {
      const withoutNamespace = causesOf(type.kind, { metadata: { name: "x" } }).filter(
        (cause) => cause.field === "metadata.namespace",
      );
      assert.equal(withoutNamespace.length, type.namespaced ? 1 : 0, type.kind);
    }
  });

  it("checks label keys and values and annotation keys", () => {
    const labelled = changed(configMap, (copy) => {
      Object.assign(copy.metadata, {
        labels: { "app.kubernetes.io/name": "web", "bad key": "x", tier: "-db" },
        annotations: { "Example.com/Note": "fine", "a/b/c": "x" },
      });
    });
    const problems = problemsOf("ConfigMap", labelled);
    assert.equal(problems.length, 3);
    assert.match(problems[0] ?? "", /^metadata\.labels: Invalid value: "bad key": name part must consist of/);
    assert.match(problems[1] ?? "", /^metadata\.labels: Invalid value: "-db": a valid label must be an empty string/);
    assert.match(problems[2] ?? "", /^metadata\.annotations: Invalid value: "a\/b\/c": a qualified name must consist/);
  });

  it("limits annotations to 256 KiB in total", () => {
    const heavy = changed(configMap, (copy) => {
      Object.assign(copy.metadata, { annotations: { note: "x".repeat(256 * 1024) } });
    });
    assert.deepEqual(problemsOf("ConfigMap", heavy), [
      "metadata.annotations: Too long: must have at most 262144 bytes",
    ]);
  });

  it("accepts qualified and standard finalizers and refuses others", () => {
    const finalized = changed(configMap, (copy) => {
      Object.assign(copy.metadata, { finalizers: ["kubernetes.io/pvc-protection", "kubernetes", "my-finalizer"] });
    });
    assert.deepEqual(problemsOf("ConfigMap", finalized), [
      'metadata.finalizers[2]: Invalid value: "my-finalizer": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });

  it("requires owner references to name their owner", () => {
    const owned = changed(configMap, (copy) => {
      Object.assign(copy.metadata, { ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web" }] });
    });
    assert.deepEqual(problemsOf("ConfigMap", owned), [
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
  });
});

describe("metadata on update", () => {
  const stored = changed(configMap, (copy) => {
    Object.assign(copy.metadata, { uid: "1234", resourceVersion: "7" });
  });

  it("keeps the uid and allows a missing one", () => {
    assert.deepEqual(problemsOf("ConfigMap", configMap, stored), []);
    const otherUid = changed(stored, (copy) => {
      Object.assign(copy.metadata, { uid: "9999" });
    });
    assert.deepEqual(problemsOf("ConfigMap", otherUid, stored), [
      'metadata.uid: Invalid value: "9999": field is immutable',
    ]);
  });

  it("refuses new finalizers on an object being deleted", () => {
    const deleting = changed(stored, (copy) => {
      Object.assign(copy.metadata, { deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["kubernetes.io/a"] });
    });
    const added = changed(deleting, (copy) => {
      Object.assign(copy.metadata, { finalizers: ["kubernetes.io/a", "kubernetes.io/b"] });
    });
    assert.deepEqual(problemsOf("ConfigMap", added, deleting), [
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"kubernetes.io/b"}',
    ]);
    const removed = changed(deleting, (copy) => {
      Object.assign(copy.metadata, { finalizers: [] });
    });
    assert.deepEqual(problemsOf("ConfigMap", removed, deleting), []);
  });
});
