import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { base64ProblemOffset, decodedLength } from "./base64-check.ts";

describe("base64ProblemOffset", () => {
  it("accepts standard base64, padded or not needing padding, across lines", () => {
    for (const text of ["", "YQ==", "YWI=", "YWJj", "YWJj\nZGVm", "YWJjZA==\r\n"]) {
      assert.equal(base64ProblemOffset(text), undefined, JSON.stringify(text));
    }
  });

  it("points where Go's decoder stops", () => {
    const cases: ReadonlyArray<[string, number]> = [
      ["hunter2!", 7],
      ["abc", 0],
      ["YWJjZ", 4],
      ["a===", 1],
      ["ab=", 3],
      ["ab=c", 2],
      ["YWI=YWI=", 4],
      ["YW-j", 2],
    ];
    for (const [text, offset] of cases) assert.equal(base64ProblemOffset(text), offset, text);
  });

  it("knows the decoded size", () => {
    assert.equal(decodedLength("YWJjZA=="), 4);
    assert.equal(decodedLength("YWJj"), 3);
  });
});
