import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatGoDuration, formatGoTime } from "./duration.ts";

describe("formatGoDuration", () => {
  const cases: Array<[number, string]> = [
    [0, "0s"],
    [0.000001, "1ns"],
    [0.0011, "1.1µs"],
    [2.2, "2.2ms"],
    [500, "500ms"],
    [1_000, "1s"],
    [3_300, "3.3s"],
    [64_000, "1m4s"],
    [122_000, "2m2s"],
    [120_000, "2m0s"],
    [245_001, "4m5.001s"],
    [3_600_000, "1h0m0s"],
    [18_367_001, "5h6m7.001s"],
    [-1_500, "-1.5s"],
  ];
  for (const [durationMs, expected] of cases) {
    it(`prints ${durationMs} ms as ${expected}`, () => {
      assert.equal(formatGoDuration(durationMs), expected);
    });
  }

  it("rejects a non-finite duration", () => {
    assert.throws(() => formatGoDuration(Number.NaN), /durationMs must be finite, got NaN/);
  });
});

describe("formatGoTime", () => {
  const start = Date.UTC(2026, 0, 1);

  it("prints whole seconds without a fraction", () => {
    assert.equal(formatGoTime(start), "2026-01-01 00:00:00 +0000 UTC");
  });

  it("prints fractional seconds with trailing zeros dropped", () => {
    assert.equal(formatGoTime(start + 122_500), "2026-01-01 00:02:02.5 +0000 UTC");
    assert.equal(formatGoTime(start + 0.25), "2026-01-01 00:00:00.00025 +0000 UTC");
    assert.equal(formatGoTime(start + 86_399_999), "2026-01-01 23:59:59.999 +0000 UTC");
  });
});
