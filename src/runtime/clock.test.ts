import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatRfc3339, formatRfc3339Micro } from "./clock.ts";

describe("RFC 3339 formatting", () => {
  it("writes metav1.Time to the second", () => {
    assert.equal(formatRfc3339(Date.UTC(2026, 10, 21, 16, 5, 0, 999)), "2026-11-21T16:05:00Z");
  });

  it("writes metav1.MicroTime with six fraction digits, the milliseconds followed by 000", () => {
    const second = Date.UTC(2026, 10, 21, 16, 5, 0);
    assert.equal(formatRfc3339Micro(second), "2026-11-21T16:05:00.000000Z");
    assert.equal(formatRfc3339Micro(second + 7), "2026-11-21T16:05:00.007000Z");
    assert.equal(formatRfc3339Micro(second + 999.9), "2026-11-21T16:05:00.999000Z");
    assert.equal(formatRfc3339Micro(second + 1000), "2026-11-21T16:05:01.000000Z");
    assert.equal(formatRfc3339Micro(second + 42), "2026-11-21T16:05:00.042000Z");
  });

  it("writes instants before 1970 too", () => {
    assert.equal(formatRfc3339Micro(-1), "1969-12-31T23:59:59.999000Z");
    assert.equal(formatRfc3339Micro(-1.5), "1969-12-31T23:59:59.999000Z");
  });

  it("refuses a time that is not one", () => {
    assert.throws(() => formatRfc3339Micro(Number.NaN), RangeError);
  });
});
