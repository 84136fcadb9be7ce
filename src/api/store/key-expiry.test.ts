/**
 * The memory and SQLite backends' key expiry: each key goes at the instant its last write with a
 * TTL set, in write order, and only if nothing has written it since; all on one Clock timer.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { KeyExpiry } from "./key-expiry.ts";

const secondMs = 1_000;

function fixture(failFirst = 0) {
  const clock = new VirtualClock();
  const start = clock.now();
  const expired: string[] = [];
  let failures = failFirst;
  const expiry = new KeyExpiry(clock, "memory", (key, modRevision) => {
    if (failures > 0) {
      failures--;
      throw new Error("disk full");
    }
    expired.push(`${key}@${modRevision} after ${(clock.now() - start) / secondMs}s`);
  });
  return { clock, start, expired, expiry };
}

describe("KeyExpiry", () => {
  it("expires each key at its own instant, those due together in write order", async () => {
    const { clock, start, expired, expiry } = fixture();
    expiry.arm("/events/b", 2, start + 30 * secondMs);
    expiry.arm("/events/a", 1, start + 10 * secondMs);
    expiry.arm("/events/d", 4, start + 30 * secondMs);
    expiry.arm("/events/c", 3, start + 30 * secondMs);
    await clock.advanceBy(9 * secondMs);
    assert.deepEqual(expired, []);
    await clock.runUntilIdle();
    assert.deepEqual(expired, [
      "/events/a@1 after 10s",
      "/events/b@2 after 30s",
      "/events/c@3 after 30s",
      "/events/d@4 after 30s",
    ]);
    assert.equal(expiry.size, 0);
  });

  it("holds a single timer of the clock however many keys wait", () => {
    const { clock, start, expiry } = fixture();
    for (let i = 0; i < 5_000; i++) expiry.arm(`/events/e${i}`, i + 1, start + 3_600 * secondMs);
    assert.equal(expiry.size, 5_000);
    assert.equal(clock.pendingTimers(), 1);
  });

  it("takes the expiry of the key's last write, and none after a clear", async () => {
    const { clock, start, expired, expiry } = fixture();
    expiry.arm("/events/x", 1, start + 10 * secondMs);
    expiry.arm("/events/x", 5, start + 40 * secondMs);
    expiry.arm("/events/y", 2, start + 20 * secondMs);
    expiry.clear("/events/y");
    await clock.runUntilIdle();
    assert.deepEqual(expired, ["/events/x@5 after 40s"]);
  });

  it("leaves no timer behind once every key is cleared", () => {
    const { clock, start, expiry } = fixture();
    expiry.arm("/events/x", 1, start + 10 * secondMs);
    expiry.arm("/events/y", 2, start + 10 * secondMs);
    expiry.clear("/events/x");
    expiry.clear("/events/y");
    assert.equal(clock.pendingTimers(), 0);
  });

  it("moves the timer earlier for a key that expires before every waiting one", async () => {
    const { clock, start, expired, expiry } = fixture();
    expiry.arm("/events/late", 1, start + 60 * secondMs);
    expiry.arm("/events/early", 2, start + 5 * secondMs);
    await clock.advanceBy(5 * secondMs);
    assert.deepEqual(expired, ["/events/early@2 after 5s"]);
  });

  it("tries a removal that could not be written again 500 ms later", async () => {
    const { clock, start, expired, expiry } = fixture(2);
    expiry.arm("/events/x", 1, start + 10 * secondMs);
    await clock.runUntilIdle();
    assert.deepEqual(expired, ["/events/x@1 after 11s"]);
  });

  it("keeps its queue bounded when the same keys are written again and again", async () => {
    const { clock, start, expired, expiry } = fixture();
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 200; i++) expiry.arm(`/events/e${i}`, round * 200 + i + 1, start + (100 + round) * secondMs);
    }
    const queued = expiry.queuedEntries;
    assert.ok(queued <= 1_024 + 1, `${queued} entries queued for 200 keys`);
    await clock.runUntilIdle();
    assert.equal(expired.length, 200);
    assert.ok(expired.every((line) => line.endsWith("after 119s")));
  });
});
