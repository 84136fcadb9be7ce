import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatClock, formatDuration, parseDuration } from "./duration.ts";

describe("durations", () => {
  it("reads Go-style durations", () => {
    assert.equal(parseDuration("500ms"), 500);
    assert.equal(parseDuration("30s"), 30_000);
    assert.equal(parseDuration("1m30s"), 90_000);
    assert.equal(parseDuration("1h5m"), 3_900_000);
    assert.equal(parseDuration("2m3.5s"), 123_500);
    assert.equal(parseDuration("0"), 0);
  });

  it("refuses what is not a duration, bare numbers included", () => {
    for (const text of ["5x", "30", "", "m", "1 m", "-1s", "1d"]) assert.equal(parseDuration(text), undefined, text);
  });

  it("spells durations the short way", () => {
    assert.deepEqual([0, 500, 30_000, 90_000, 123_500, 3_900_000].map(formatDuration), [
      "0s",
      "500ms",
      "30s",
      "1m30s",
      "2m3.5s",
      "1h5m",
    ]);
  });

  it("prints run times as a clock, down to the millisecond", () => {
    assert.equal(formatClock(0), "00:00:00.000");
    assert.equal(formatClock(123_500), "00:02:03.500");
    assert.equal(formatClock(3_723_004.9), "01:02:03.004");
  });
});
