import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { ApiError } from "../errors.ts";
import { schemaForKind } from "../schema/schema.ts";
import type { PatchSchemaNode } from "./patch-schema.ts";
import { applyStrategicMergePatch } from "./strategic-merge-patch.ts";

type JsonMap = Record<string, unknown>;

interface Fixture {
  name: string;
  apiVersion: string;
  kind: string;
  original: JsonMap;
  patch: JsonMap;
  expected?: JsonMap;
  error?: { code: number; contains: string };
}

const fixtures = JSON.parse(
  readFileSync(new URL("./fixtures/strategic-merge-patch.json", import.meta.url), "utf8"),
) as Fixture[];

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe("strategic merge patch: what kubectl sends", () => {
  for (const fixture of fixtures) {
    it(fixture.name, () => {
      const schema = schemaForKind(fixture.apiVersion, fixture.kind);
      assert.ok(schema, `the schema knows ${fixture.apiVersion} ${fixture.kind}`);
      const original = deepFreeze(structuredClone(fixture.original));
      if (fixture.error !== undefined) {
        const expected = fixture.error;
        assert.throws(
          () => applyStrategicMergePatch(original, fixture.patch, schema),
          (error: unknown) =>
            error instanceof ApiError && error.code === expected.code && error.message.includes(expected.contains),
        );
        return;
      }
      assert.deepEqual(applyStrategicMergePatch(original, fixture.patch, schema), fixture.expected);
    });
  }
});

describe("strategic merge patch on a hand-built schema", () => {
  const schema: PatchSchemaNode = {
    properties: {
      items: { patchStrategy: "merge", patchMergeKey: "id" },
      tags: { patchStrategy: "merge" },
      plain: {},
      nested: { patchStrategy: "replace" },
    },
  };

  it("merges elements by the declared merge key and leaves the original unchanged", () => {
    const original = deepFreeze({
      items: [
        { id: 1, a: "x" },
        { id: 2, a: "y" },
      ],
    });
    const patched = applyStrategicMergePatch(original, { items: [{ id: 2, a: "z" }, { id: 3 }] }, schema);
    assert.deepEqual(patched, { items: [{ id: 1, a: "x" }, { id: 2, a: "z" }, { id: 3 }] });
    assert.deepEqual(original, {
      items: [
        { id: 1, a: "x" },
        { id: 2, a: "y" },
      ],
    });
  });

  it("unions scalar lists with strategy merge without duplicates", () => {
    const patched = applyStrategicMergePatch({ tags: ["a", "b"] }, { tags: ["b", "c"] }, schema);
    assert.deepEqual(patched, { tags: ["a", "b", "c"] });
  });

  it("replaces lists without a merge strategy and maps with strategy replace", () => {
    const patched = applyStrategicMergePatch(
      { plain: [1, 2], nested: { a: 1, b: 2 } },
      { plain: [3], nested: { c: 3 } },
      schema,
    );
    assert.deepEqual(patched, { plain: [3], nested: { c: 3 } });
  });

  it("merges a schemaless map key by key and replaces its lists", () => {
    const patched = applyStrategicMergePatch({ x: { keep: 1, list: [1] } }, { x: { list: [2], add: true } }, undefined);
    assert.deepEqual(patched, { x: { keep: 1, list: [2], add: true } });
  });

  it("refuses $patch: merge inside a list, as apimachinery does", () => {
    assert.throws(
      () => applyStrategicMergePatch({ items: [] }, { items: [{ $patch: "merge" }] }, schema),
      /merging lists cannot yet be specified/,
    );
  });

  it("refuses a $setElementOrder that is not a list", () => {
    assert.throws(
      () => applyStrategicMergePatch({ items: [] }, { "$setElementOrder/items": "id" }, schema),
      (error: unknown) =>
        error instanceof ApiError && error.code === 400 && /\$setElementOrder\/items/.test(error.message),
    );
  });
});
