import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FieldSet, fieldElement, keyElement, printPath, valueElement } from "./field-set.ts";

describe("field sets", () => {
  it("decodes FieldsV1 and encodes it back unchanged", () => {
    const encoded = {
      "f:metadata": { "f:finalizers": { ".": {}, 'v:"kubernetes.io/pvc-protection"': {} } },
      "f:spec": { "f:containers": { 'k:{"name":"web"}': { ".": {}, "f:image": {} } } },
    };
    const set = FieldSet.fromFieldsV1(encoded);
    assert.deepEqual(set.toFieldsV1(), encoded);
    assert.equal(set.has([fieldElement("spec"), fieldElement("containers"), keyElement({ name: "web" })]), true);
    assert.equal(set.has([fieldElement("spec")]), false, "a parent is not a member unless marked");
  });

  it("refuses FieldsV1 with an unknown path element", () => {
    assert.throws(() => FieldSet.fromFieldsV1({ "x:spec": {} }), /not a FieldsV1 path element/);
  });

  it("prints paths as apply conflicts name them, key fields sorted", () => {
    const path = [fieldElement("spec"), fieldElement("ports"), keyElement({ protocol: "TCP", containerPort: 80 })];
    assert.equal(printPath(path), '.spec.ports[containerPort=80,protocol="TCP"]');
    assert.equal(
      printPath([fieldElement("metadata"), fieldElement("finalizers"), valueElement("a")]),
      '.metadata.finalizers[="a"]',
    );
  });

  it("computes differences and intersections member by member", () => {
    const a = new FieldSet();
    a.insert([fieldElement("a")]);
    a.insert([fieldElement("b"), fieldElement("c")]);
    const b = new FieldSet();
    b.insert([fieldElement("b"), fieldElement("c")]);
    assert.deepEqual(a.difference(b).paths(), [[fieldElement("a")]]);
    assert.deepEqual(a.intersection(b).paths(), [[fieldElement("b"), fieldElement("c")]]);
    assert.equal(a.hasAtOrBelow([fieldElement("b")]), true);
    assert.equal(a.difference(a).isEmpty(), true);
  });
});
