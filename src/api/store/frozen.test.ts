import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isApiError } from "../errors.ts";
import type { KObject } from "../objects.ts";
import { freezeParsed, frozenCopy, sealAtRevision } from "./frozen.ts";

describe("frozenCopy", () => {
  it("returns a deeply frozen copy and leaves the input mutable", () => {
    const input = { spec: { containers: [{ name: "a" }] } };
    const copy = frozenCopy(input);
    assert.deepEqual(copy, input);
    assert.ok(Object.isFrozen(copy.spec.containers[0]));
    assert.equal(Object.isFrozen(input.spec.containers[0]), false);
    input.spec.containers[0] = { name: "changed" };
    assert.equal(copy.spec.containers[0]?.name, "a");
  });

  it("shares frozen subtrees instead of copying them", () => {
    const shared = frozenCopy({ big: { nested: [1, 2, 3] } });
    const copy = frozenCopy({ spec: shared, extra: 1 });
    assert.equal(copy.spec, shared);
  });

  it("drops undefined fields, as JSON would", () => {
    assert.deepEqual(Object.keys(frozenCopy({ a: 1, b: undefined })), ["a"]);
  });

  it("refuses values that are not JSON data, naming where they are", () => {
    assert.throws(
      () => frozenCopy({ spec: { items: [{ when: new Date(0) }] } }),
      (err: unknown) =>
        isApiError(err, "BadRequest") && err.message === "spec.items[0].when is a Date, which is not JSON data",
    );
    assert.throws(() => frozenCopy({ data: { a: () => 1 } }), /data\.a is a function/);
  });
});

describe("sealAtRevision", () => {
  it("stamps resourceVersion on a copy, even of a frozen object", () => {
    const input: KObject = { metadata: { name: "a" } };
    const stored = sealAtRevision(input, 3);
    const again = sealAtRevision(stored, 4);
    assert.equal(stored.metadata?.resourceVersion, "3");
    assert.equal(again.metadata?.resourceVersion, "4");
    assert.ok(Object.isFrozen(again.metadata));
  });
});

describe("sealAtRevision", () => {
  it("keeps the input's field order, copies what is unfrozen and drops what is undefined", () => {
    const labels = frozenCopy({ app: "web" });
    const input = {
      kind: "Pod",
      metadata: { name: "a", resourceVersion: "1", labels, annotations: { note: "x" }, uid: undefined },
      spec: { nodeName: undefined, containers: [{ name: "c" }] },
    } as KObject;
    const stored = sealAtRevision(input, 5);
    assert.deepEqual(Object.keys(stored), ["kind", "metadata", "spec"]);
    assert.deepEqual(Object.keys(stored.metadata ?? {}), ["name", "resourceVersion", "labels", "annotations"]);
    assert.equal(stored.metadata?.resourceVersion, "5");
    assert.equal(stored.metadata?.labels, labels, "a frozen subtree is shared");
    assert.ok(Object.isFrozen(stored.metadata?.annotations));
    assert.deepEqual(stored.spec, { containers: [{ name: "c" }] });
    assert.equal(input.metadata?.resourceVersion, "1", "the input is left as it was");
  });

  it("adds resourceVersion last when the metadata has none", () => {
    const stored = sealAtRevision({ kind: "Pod", metadata: { name: "a", namespace: "ns" } } as KObject, 7);
    assert.deepEqual(Object.keys(stored.metadata ?? {}), ["name", "namespace", "resourceVersion"]);
    assert.equal(stored.metadata?.resourceVersion, "7");
  });

  it("copies own fields only, as a spread would", () => {
    const input = Object.assign(Object.create({ inherited: "no" }), { kind: "Pod", metadata: { name: "a" } });
    const stored = sealAtRevision(input as KObject, 3);
    assert.deepEqual(Object.keys(stored), ["kind", "metadata"]);
  });

  it("keeps a field named __proto__ as data", () => {
    const input = JSON.parse('{"metadata":{"name":"a","labels":{"__proto__":"x"}},"data":{"__proto__":"y"}}');
    const stored = sealAtRevision(input as KObject, 2);
    assert.deepEqual(Object.keys(stored.metadata?.labels ?? {}), ["__proto__"]);
    assert.equal(JSON.stringify(stored.data), '{"__proto__":"y"}');
  });

  it("names a value that is not JSON data", () => {
    assert.throws(
      () => sealAtRevision({ metadata: { name: "a" }, spec: { when: new Date(0) } } as KObject, 2),
      (err: unknown) => isApiError(err, "BadRequest") && err.message === "spec.when is a Date, which is not JSON data",
    );
  });

  it("seals the next object whole after a refused one, and after a very wide one", () => {
    const broken = { metadata: { name: "a" }, spec: { deep: { handler: () => 1 } } } as unknown as KObject;
    assert.throws(
      () => sealAtRevision(broken, 1),
      (err: unknown) => isApiError(err, "BadRequest"),
    );
    const wide: Record<string, string> = {};
    for (let i = 0; i < 300; i++) wide[`k${i}`] = String(i);
    const sealed = sealAtRevision({ metadata: { name: "b", labels: wide }, data: { x: { y: "z" } } }, 2);
    assert.equal(Object.keys(sealed.metadata?.labels ?? {}).length, 300);
    assert.equal(
      JSON.stringify(sealAtRevision({ metadata: { name: "c" }, spec: { a: { b: 1 } } }, 3)),
      '{"metadata":{"name":"c","resourceVersion":"3"},"spec":{"a":{"b":1}}}',
    );
    assert.deepEqual(sealed.data, { x: { y: "z" } });
  });
});

describe("freezeParsed", () => {
  it("freezes parsed JSON in place, all the way down", () => {
    const parsed = freezeParsed(JSON.parse('{"a":{"b":[{"c":1}]}}') as { a: { b: { c: number }[] } });
    assert.ok(Object.isFrozen(parsed.a.b[0]));
  });
});
