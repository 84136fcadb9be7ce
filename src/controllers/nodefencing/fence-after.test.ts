import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseFenceAfter } from "./fence-after.ts";

describe("the fencing grace (--fence-after, fencing.kvol.io/fence-after)", () => {
  it("reads Go durations", () => {
    assert.equal(parseFenceAfter("15s", "--fence-after"), 15_000);
    assert.equal(parseFenceAfter("1m30s", "--fence-after"), 90_000);
    assert.equal(parseFenceAfter("2m", "--fence-after"), 120_000);
  });

  it("refuses what is not a duration, naming the field", () => {
    assert.throws(() => parseFenceAfter("30", "--fence-after"), {
      message: '--fence-after must be a duration like 30s or 1m, got "30"',
    });
    assert.throws(() => parseFenceAfter("soon", "StorageClass fast annotation fencing.kvol.io/fence-after"), {
      message: 'StorageClass fast annotation fencing.kvol.io/fence-after must be a duration like 30s or 1m, got "soon"',
    });
  });

  it("refuses a grace a live kubelet's Lease renewals (every 10s) could miss", () => {
    assert.throws(() => parseFenceAfter("5s", "--fence-after"), {
      message: '--fence-after must be at least 10s (a live kubelet renews its Lease every 10s), got "5s"',
    });
  });
});
