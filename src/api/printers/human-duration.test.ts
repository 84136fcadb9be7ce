import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ageSince, humanDuration } from "./human-duration.ts";

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;

describe("humanDuration", () => {
  it("prints ages the way kubectl does at each scale", () => {
    const cases: [number, string][] = [
      [0, "0s"],
      [-1500, "0s"],
      [-5 * second, "<invalid>"],
      [45 * second, "45s"],
      [119 * second, "119s"],
      [2 * minute, "2m"],
      [5 * minute + 3 * second, "5m3s"],
      [12 * minute + 30 * second, "12m"],
      [179 * minute, "179m"],
      [3 * hour + 20 * minute, "3h20m"],
      [5 * hour, "5h"],
      [47 * hour, "47h"],
      [2 * day, "2d"],
      [7 * day + 23 * hour, "7d23h"],
      [40 * day, "40d"],
      [800 * day, "2y70d"],
      [3650 * day, "10y"],
    ];
    for (const [ms, expected] of cases) assert.equal(humanDuration(ms), expected, `${ms} ms`);
  });
});

describe("ageSince", () => {
  it("measures from an RFC 3339 timestamp to now", () => {
    const now = Date.parse("2026-11-21T12:05:03Z");
    assert.equal(ageSince("2026-11-21T12:00:00Z", now), "5m3s");
  });

  it("prints <unknown> for a missing or unreadable timestamp", () => {
    assert.equal(ageSince(undefined, 0), "<unknown>");
    assert.equal(ageSince("yesterday", 0), "<unknown>");
  });
});
