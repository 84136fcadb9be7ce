import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseDurationMs } from "./go-duration.ts";

describe("parseDurationMs", () => {
  it("reads Go durations, with several terms and fractions", () => {
    const cases: Array<[string, number]> = [
      ["30s", 30_000],
      ["2m", 120_000],
      ["1m30s", 90_000],
      ["500ms", 500],
      ["1.5h", 5_400_000],
      ["2m2s", 122_000],
      ["0s", 0],
    ];
    for (const [text, expectedMs] of cases) assert.equal(parseDurationMs(text), expectedMs, text);
  });

  it("reads plain numbers as milliseconds", () => {
    assert.equal(parseDurationMs(1500), 1500);
    assert.equal(parseDurationMs("250"), 250);
  });

  it("refuses text that is not a duration", () => {
    for (const text of ["3x", "", "s", "1m 30s", "-5s", "1d", "5 s"]) {
      assert.equal(parseDurationMs(text), undefined, text);
    }
    assert.equal(parseDurationMs(-1), undefined);
    assert.equal(parseDurationMs(Number.NaN), undefined);
  });
});
