import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "../objects.ts";
import { clone, deepFreeze, withStoredParts } from "./copy.ts";

describe("clone", () => {
  it("returns a deep copy that can be changed while the frozen original stays as it was", () => {
    const original: Pod = deepFreeze({
      metadata: { name: "web", labels: { app: "web" } },
      spec: { containers: [{ name: "c", image: "nginx" }] },
      status: { phase: "Pending" },
    });
    const copy = clone(original);
    copy.status = { phase: "Running" };
    copy.spec?.containers.push({ name: "sidecar" });
    (copy.metadata ?? {}).labels = { app: "other" };
    assert.equal(original.status?.phase, "Pending");
    assert.equal(original.spec?.containers.length, 1);
    assert.deepEqual(original.metadata?.labels, { app: "web" });
    assert.equal(Object.isFrozen(copy), false);
  });

  it("copies every level, drops fields set to undefined, and keeps a field named __proto__ as data", () => {
    const original = deepFreeze({
      metadata: { name: "web", uid: undefined, labels: JSON.parse('{"__proto__":"x"}') as Record<string, string> },
      spec: { containers: [{ name: "c", ports: [{ containerPort: 80 }] }] },
    });
    const copy = clone(original);
    assert.deepEqual(Object.keys(copy.metadata), ["name", "labels"]);
    assert.deepEqual(Object.keys(copy.metadata.labels), ["__proto__"]);
    assert.notEqual(copy.spec.containers[0]?.ports, original.spec.containers[0]?.ports);
    assert.equal(Object.isFrozen(copy.spec.containers[0]?.ports[0]), false);
    assert.throws(() => clone({ spec: { run: () => 1 } }), /spec\.run is a function/);
  });

  it("names the field that is not JSON data", () => {
    assert.throws(() => clone({ metadata: { created: new Date(0) } }), /metadata\.created is a Date/);
  });
});

describe("deepFreeze", () => {
  it("freezes nested objects and arrays", () => {
    const value = deepFreeze({ a: { b: [{ c: 1 }] } });
    assert.throws(() => {
      (value.a.b[0] as { c: number }).c = 2;
    }, TypeError);
  });
});

describe("withStoredParts", () => {
  const stored = deepFreeze({
    metadata: { name: "data", labels: { app: "web" }, finalizers: ["kubernetes.io/pvc-protection"] },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    status: { phase: "Pending" },
  });

  it("keeps the stored parts a change left alone and the changed ones as written", () => {
    const draft = clone(stored);
    draft.status = { phase: "Bound" };
    draft.metadata.finalizers = [];
    const written = withStoredParts(draft, stored);
    assert.equal(written.spec, stored.spec);
    assert.equal(written.metadata.labels, stored.metadata.labels);
    assert.deepEqual(written.status, { phase: "Bound" });
    assert.deepEqual(written.metadata.finalizers, []);
    assert.equal(JSON.stringify(written), JSON.stringify(draft));
  });

  it("gives the stored object back when nothing differs, and keeps a reordered part as written", () => {
    assert.equal(withStoredParts(clone(stored), stored), stored);
    const draft = clone(stored);
    draft.status = { phase: "Pending" };
    draft.spec = { resources: { requests: { storage: "1Gi" } }, accessModes: ["ReadWriteOnce"] };
    const written = withStoredParts(draft, stored);
    assert.equal(written.status, stored.status);
    assert.notEqual(written.spec, stored.spec);
    assert.equal(
      JSON.stringify(written.spec),
      '{"resources":{"requests":{"storage":"1Gi"}},"accessModes":["ReadWriteOnce"]}',
    );
  });

  it("writes a part that lost a field as written, sharing the stored parts it kept", () => {
    const draft = clone(stored);
    const { labels: _dropped, ...rest } = draft.metadata;
    (draft as { metadata: unknown }).metadata = rest;
    const written = withStoredParts(draft, stored);
    assert.notEqual(written.metadata, stored.metadata);
    assert.equal(JSON.stringify(written), JSON.stringify(draft));
    assert.equal(written.spec, stored.spec);
    assert.equal(written.metadata.finalizers, stored.metadata.finalizers);
  });

  it("leaves an object the change attached as the caller's own, so the caller can go on changing it", () => {
    const draft = clone(stored);
    const metadata = { name: "data", labels: { app: "web" }, finalizers: [] as string[] };
    draft.metadata = metadata;
    const written = withStoredParts(draft, stored);
    assert.equal(JSON.stringify(written.metadata), '{"name":"data","labels":{"app":"web"},"finalizers":[]}');
    assert.equal(written.metadata.labels, stored.metadata.labels);
    assert.equal(draft.metadata, metadata);
    assert.equal(Object.isFrozen(metadata.labels), false);
    metadata.labels.app = "db";
    metadata.finalizers.push("example.com/keep");
    assert.deepEqual(metadata, { name: "data", labels: { app: "db" }, finalizers: ["example.com/keep"] });
  });
});
