import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isApiError } from "../api/errors.ts";
import { applyJsonPatch } from "./json-patch.ts";

const target = Object.freeze({ a: { b: "c" }, list: Object.freeze(["x", "y"]) });

describe("applyJsonPatch", () => {
  it("applies add, remove, replace, move, copy and test in order without changing the target", () => {
    const result = applyJsonPatch(target, [
      { op: "test", path: "/a/b", value: "c" },
      { op: "add", path: "/list/1", value: "inserted" },
      { op: "add", path: "/list/-", value: "last" },
      { op: "replace", path: "/a/b", value: "d" },
      { op: "copy", from: "/a/b", path: "/copied" },
      { op: "move", from: "/list/0", path: "/moved" },
      { op: "remove", path: "/list/0" },
      { op: "add", path: "/x~1y", value: 1 },
    ]);
    assert.deepEqual(result, { a: { b: "d" }, list: ["y", "last"], copied: "d", moved: "x", "x/y": 1 });
    assert.deepEqual(target, { a: { b: "c" }, list: ["x", "y"] });
  });

  it("refuses the whole patch when one operation fails, naming the path", () => {
    const cases: [unknown, RegExp][] = [
      [[{ op: "remove", path: "/missing" }], /path "\/missing" does not exist/],
      [[{ op: "add", path: "/list/5", value: 1 }], /out of range/],
      [[{ op: "test", path: "/a/b", value: "z" }], /test operation failed/],
      [[{ op: "frob", path: "/a" }], /unknown operation "frob"/],
      [[{ op: "move", path: "/a" }], /needs a "from" path/],
      [{ op: "add" }, /must be an array/],
      [[{ op: "add", path: "a", value: 1 }], /must start with "\/"/],
    ];
    for (const [patch, message] of cases) {
      assert.throws(
        () => applyJsonPatch(target, patch),
        (error) => isApiError(error, "BadRequest") && message.test(error.message),
        String(message),
      );
    }
  });
});
