import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FieldCause } from "../errors.ts";
import {
  readBoolean,
  readInteger,
  readIntOrString,
  readObject,
  readObjectList,
  readString,
  readStringList,
  readStringMap,
} from "./json-reader.ts";

function read<T>(reader: (value: unknown, path: string, out: FieldCause[]) => T, value: unknown) {
  const out: FieldCause[] = [];
  const result = reader(value, "spec.field", out);
  return { result, messages: out.map((cause) => `${cause.field}: ${cause.message}`) };
}

describe("json readers", () => {
  it("treat null as absent, as Kubernetes does", () => {
    const readers: ReadonlyArray<(value: unknown, path: string, out: FieldCause[]) => unknown> = [
      readObject,
      readString,
      readInteger,
      readBoolean,
      readStringList,
    ];
    for (const reader of readers) assert.deepEqual(read(reader, null), { result: undefined, messages: [] });
  });

  it("name the expected and the actual type", () => {
    assert.deepEqual(read(readObject, [1]).messages, [
      'spec.field: Invalid value: "array": spec.field in body must be of type object: "array"',
    ]);
    assert.deepEqual(read(readInteger, 1.5).messages, [
      'spec.field: Invalid value: "number": spec.field in body must be of type integer: "number"',
    ]);
    assert.deepEqual(read(readBoolean, "true").messages, [
      'spec.field: Invalid value: "string": spec.field in body must be of type boolean: "string"',
    ]);
  });

  it("report bad elements at their own path and keep the good ones", () => {
    assert.deepEqual(read(readStringList, ["a", 2, "c"]), {
      result: ["a", "c"],
      messages: ['spec.field[1]: Invalid value: "integer": spec.field[1] in body must be of type string: "integer"'],
    });
    assert.deepEqual(read(readStringMap, { a: "1", b: false }), {
      result: { a: "1" },
      messages: ['spec.field[b]: Invalid value: "boolean": spec.field[b] in body must be of type string: "boolean"'],
    });
  });

  it("keep list positions for objects and read null elements as empty objects", () => {
    const { result, messages } = read(readObjectList, ["x", null, { name: "a" }]);
    assert.deepEqual(
      result.map((entry) => [entry.position, entry.path, entry.value]),
      [
        [1, "spec.field[1]", {}],
        [2, "spec.field[2]", { name: "a" }],
      ],
    );
    assert.deepEqual(messages, [
      'spec.field[0]: Invalid value: "string": spec.field[0] in body must be of type object: "string"',
    ]);
  });

  it("accept both forms of an int-or-string", () => {
    assert.equal(read(readIntOrString, "25%").result, "25%");
    assert.equal(read(readIntOrString, 3).result, 3);
    assert.equal(read(readIntOrString, true).messages.length, 1);
    assert.equal(read(readString, "ok").result, "ok");
  });
});
