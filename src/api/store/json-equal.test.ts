import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jsonEqual, jsonEqualExceptField } from "./json-equal.ts";

describe("jsonEqual", () => {
  it("compares JSON data by content, ignoring fields set to undefined", () => {
    assert.equal(jsonEqual({ a: [1, { b: "x" }] }, { a: [1, { b: "x" }] }), true);
    assert.equal(jsonEqual({ a: 1, gone: undefined }, { a: 1 }), true);
    assert.equal(jsonEqual({ a: [1, 2] }, { a: [2, 1] }), false);
    assert.equal(jsonEqual({ a: {} }, { a: [] }), false);
    assert.equal(jsonEqual({ a: null }, { a: 0 }), false);
    assert.equal(jsonEqual({ a: 1, b: 2 }, { b: 2, a: 1 }), true);
    assert.equal(jsonEqual({ a: 1 }, { a: 1, b: 2 }), false);
    assert.equal(jsonEqual({ a: 1, b: 2 }, { a: 1, c: 2 }), false);
    assert.equal(jsonEqual({ a: 1 }, { a: 1, b: undefined }), true);
    assert.equal(jsonEqual([{ a: undefined }], [{}]), true);
  });
});

describe("jsonEqualExceptField", () => {
  it("leaves one field out: metadata that differs only in resourceVersion is the same", () => {
    const stored = { name: "web", resourceVersion: "7", labels: { app: "web" } };
    assert.equal(jsonEqualExceptField({ name: "web", labels: { app: "web" } }, stored, "resourceVersion"), true);
    assert.equal(jsonEqualExceptField({ ...stored, resourceVersion: "9" }, stored, "resourceVersion"), true);
  });

  it("still sees every other difference, on either side", () => {
    const stored = { name: "web", resourceVersion: "7" };
    assert.equal(jsonEqualExceptField({ name: "web", uid: "u" }, stored, "resourceVersion"), false);
    assert.equal(jsonEqualExceptField({ name: "web" }, { ...stored, uid: "u" }, "resourceVersion"), false);
    assert.equal(jsonEqualExceptField(undefined, { resourceVersion: "7" }, "resourceVersion"), true);
    assert.equal(jsonEqualExceptField(undefined, { name: "web" }, "resourceVersion"), false);
  });
});
