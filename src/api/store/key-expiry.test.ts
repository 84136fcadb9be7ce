/**
 * The memory and SQLite backends' key expiry: each key goes at the instant its last write with a
 * TTL set, in write order, and only if nothing has written or deleted it since; all on one Clock timer.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { KeyExpiry } from "./key-expiry.ts";

const secondMs = 1_000;

/** KeyExpiry over a backend reduced to its keys' revisions, as the memory backend keeps them. */
function fixture(failFirst = 0) {
  const clock = new VirtualClock();
  const start = clock.now();
  const expired: string[] = [];
  const revisions = new Map<string, number>();
  let failures = failFirst;
  const expiry = new KeyExpiry(clock, "memory", {
    expire: (key, modRevision) => {
      if (revisions.get(key) !== modRevision) return;
      if (failures > 0) {
        failures--;
        throw new Error("disk full");
      }
      revisions.delete(key);
      expired.push(`${key}@${modRevision} after ${(clock.now() - start) / secondMs}s`);
    },
    isAt: (key, modRevision) => revisions.get(key) === modRevision,
  });
  /** A write of `key` at `modRevision`, with a TTL when `expiresAtMs` is given. */
  const write = (key: string, modRevision: number, expiresAtMs?: number): void => {
    revisions.set(key, modRevision);
    if (expiresAtMs !== undefined) expiry.arm(key, modRevision, expiresAtMs);
  };
  const remove = (key: string): boolean => revisions.delete(key);
  return { clock, start, expired, expiry, write, remove };
}

describe("KeyExpiry", () => {
  it("expires each key at its own instant, those due together in write order", async () => {
    const { clock, start, expired, expiry, write } = fixture();
    write("/events/b", 2, start + 30 * secondMs);
    write("/events/a", 1, start + 10 * secondMs);
    write("/events/d", 4, start + 30 * secondMs);
    write("/events/c", 3, start + 30 * secondMs);
    await clock.advanceBy(9 * secondMs);
    assert.deepEqual(expired, []);
    await clock.runUntilIdle();
    assert.deepEqual(expired, [
      "/events/a@1 after 10s",
      "/events/b@2 after 30s",
      "/events/c@3 after 30s",
      "/events/d@4 after 30s",
    ]);
    assert.equal(expiry.queuedEntries, 0);
    assert.equal(clock.pendingTimers(), 0);
  });

  it("holds a single timer of the clock however many keys wait", () => {
    const { clock, start, expiry, write } = fixture();
    for (let i = 0; i < 5_000; i++) write(`/events/e${i}`, i + 1, start + 3_600 * secondMs);
    assert.equal(expiry.queuedEntries, 5_000);
    assert.equal(clock.pendingTimers(), 1);
  });

  it("takes the expiry of the key's last write, and none after a write without a TTL or a delete", async () => {
    const { clock, start, expired, write, remove } = fixture();
    write("/events/x", 1, start + 10 * secondMs);
    write("/events/x", 5, start + 40 * secondMs);
    write("/events/y", 2, start + 20 * secondMs);
    write("/events/y", 6);
    write("/events/z", 3, start + 30 * secondMs);
    remove("/events/z");
    write("/events/z", 7);
    await clock.runUntilIdle();
    assert.deepEqual(expired, ["/events/x@5 after 40s"]);
  });

  it("keeps its timer for keys deleted before they expire until they would have, then leaves none", async () => {
    const { clock, start, expired, expiry, write, remove } = fixture();
    write("/events/x", 1, start + 10 * secondMs);
    write("/events/y", 2, start + 10 * secondMs);
    remove("/events/x");
    remove("/events/y");
    assert.equal(clock.pendingTimers(), 1);
    await clock.runUntilIdle();
    assert.equal(clock.now() - start, 10 * secondMs);
    assert.deepEqual(expired, []);
    assert.equal(expiry.queuedEntries, 0);
    assert.equal(clock.pendingTimers(), 0);
  });

  it("moves the timer earlier for a key that expires before every waiting one", async () => {
    const { clock, start, expired, write } = fixture();
    write("/events/late", 1, start + 60 * secondMs);
    write("/events/early", 2, start + 5 * secondMs);
    await clock.advanceBy(5 * secondMs);
    assert.deepEqual(expired, ["/events/early@2 after 5s"]);
  });

  it("tries a removal that could not be written again 500 ms later", async () => {
    const { clock, start, expired, write } = fixture(2);
    write("/events/x", 1, start + 10 * secondMs);
    await clock.runUntilIdle();
    assert.deepEqual(expired, ["/events/x@1 after 11s"]);
  });

  it("keeps its queue bounded when the same keys are written again and again", async () => {
    const { clock, start, expired, expiry, write } = fixture();
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 200; i++) write(`/events/e${i}`, round * 200 + i + 1, start + (100 + round) * secondMs);
    }
    const queued = expiry.queuedEntries;
    assert.ok(queued <= 1_024 + 1, `${queued} entries queued for 200 keys`);
    await clock.runUntilIdle();
    assert.equal(expired.length, 200);
    assert.ok(expired.every((line) => line.endsWith("after 119s")));
  });

  it("keeps its queue bounded by what is queued now, not by a past peak that has expired", async () => {
    const { clock, start, expired, expiry, write } = fixture();
    for (let i = 0; i < 3_000; i++) write(`/events/peak${i}`, i + 1, start + 10 * secondMs);
    await clock.advanceBy(10 * secondMs);
    assert.equal(expired.length, 3_000);
    assert.equal(expiry.queuedEntries, 0);
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 200; i++) write(`/events/e${i}`, 3_001 + round * 200 + i, start + 3_600 * secondMs);
    }
    assert.ok(expiry.queuedEntries <= 1_024 + 1, `${expiry.queuedEntries} entries queued for 200 keys`);
  });

  it("keeps its queue bounded when keys are written again without a TTL or deleted", () => {
    const { start, expiry, write, remove } = fixture();
    for (let i = 0; i < 5_000; i++) {
      write(`/events/e${i}`, 2 * i + 1, start + 3_600 * secondMs);
      if (i % 2 === 0) write(`/events/e${i}`, 2 * i + 2);
      else remove(`/events/e${i}`);
    }
    assert.ok(expiry.queuedEntries <= 1_024 + 1, `${expiry.queuedEntries} entries queued for no current key`);
  });

  it("tries again 500 ms later a removal whose queued write fails after the timer", async () => {
    const clock = new VirtualClock();
    const start = clock.now();
    const attempts: number[] = [];
    const expiry = new KeyExpiry(clock, "sqlite", {
      expire: async () => {
        attempts.push((clock.now() - start) / secondMs);
        if (attempts.length < 3) throw new Error("disk full");
      },
      isAt: () => true,
    });
    expiry.arm("/events/x", 1, start + 10 * secondMs);
    await clock.runUntilIdle();
    assert.deepEqual(attempts, [10, 10.5, 11]);
  });

  it("does not try again a removal that fails once it is stopped (the store closed)", async () => {
    const clock = new VirtualClock();
    let fail: (error: Error) => void = () => undefined;
    const expiry = new KeyExpiry(clock, "sqlite", {
      expire: () =>
        new Promise<void>((_resolve, reject) => {
          fail = reject;
        }),
      isAt: () => true,
    });
    expiry.arm("/events/x", 1, clock.now() + 10 * secondMs);
    await clock.advanceBy(10 * secondMs);
    expiry.stop();
    fail(new Error("the store was closed"));
    await clock.advanceBy(0);
    assert.equal(clock.pendingTimers(), 0);
    assert.equal(expiry.queuedEntries, 0);
  });
});
