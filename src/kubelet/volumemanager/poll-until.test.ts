import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Clock, QuietTimerCallback } from "../../runtime/clock.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { SyncCancellation } from "../pod/sync-cancellation.ts";
import { pollImmediateUntil } from "./poll-until.ts";

async function run(clock: VirtualClock, promise: Promise<void>): Promise<{ atMs: number; error?: Error }> {
  const start = clock.now();
  let outcome: { atMs: number; error?: Error } | undefined;
  promise.then(
    () => {
      outcome = { atMs: clock.now() - start };
    },
    (error: Error) => {
      outcome = { atMs: clock.now() - start, error };
    },
  );
  await clock.advanceBy(10_000);
  assert.ok(outcome !== undefined);
  return outcome;
}

describe("pollImmediateUntil", () => {
  it("stops at once when its sync is cancelled: context canceled, no later check, no timer left", async () => {
    const clock = new VirtualClock();
    const cancelled = new SyncCancellation();
    let checks = 0;
    const wait = pollImmediateUntil(
      clock,
      300,
      123_000,
      () => {
        checks++;
        return false;
      },
      cancelled,
    );
    clock.setTimer(1_000, () => cancelled.cancel());
    const outcome = await run(clock, wait);
    assert.equal(outcome.atMs, 1_000);
    assert.equal(outcome.error?.message, "context canceled");
    // Checks at 0, 300, 600 and 900 ms; none after the cancellation, and nothing left to run until 2m3s.
    assert.equal(checks, 4);
    assert.equal(clock.pendingTimers(), 0);
  });

  it("checks once, as Kubernetes' immediate poll does, when its sync is already cancelled", async () => {
    const clock = new VirtualClock();
    const cancelled = new SyncCancellation();
    cancelled.cancel();
    let checks = 0;
    const stillUnmounted = await run(
      clock,
      pollImmediateUntil(clock, 300, 123_000, () => ++checks < 0, cancelled),
    );
    assert.deepEqual([stillUnmounted.atMs, stillUnmounted.error?.message, checks], [0, "context canceled", 1]);
    const mounted = await run(
      clock,
      pollImmediateUntil(clock, 300, 123_000, () => true, cancelled),
    );
    assert.deepEqual(mounted, { atMs: 0 });
  });

  it("checks at once, then every interval", async () => {
    const clock = new VirtualClock();
    const checks: number[] = [];
    const start = clock.now();
    const outcome = await run(
      clock,
      pollImmediateUntil(clock, 300, 5_000, () => {
        checks.push(clock.now() - start);
        return checks.length === 3;
      }),
    );
    assert.deepEqual(checks, [0, 300, 600]);
    assert.deepEqual(outcome, { atMs: 600 });
  });

  it("times out at exactly the deadline with Kubernetes' text, without asking again there", async () => {
    const clock = new VirtualClock();
    const checks: number[] = [];
    const start = clock.now();
    const outcome = await run(
      clock,
      pollImmediateUntil(clock, 300, 1_000, () => {
        checks.push(clock.now() - start);
        return false;
      }),
    );
    assert.deepEqual(checks, [0, 300, 600, 900]);
    assert.equal(outcome.atMs, 1_000);
    assert.equal(outcome.error?.message, "timed out waiting for the condition");
  });

  it("ends with the error a later check throws, at that check", async () => {
    const clock = new VirtualClock();
    let checks = 0;
    const outcome = await run(
      clock,
      pollImmediateUntil(clock, 300, 5_000, () => {
        checks++;
        if (checks === 3) throw new Error("volume is in error");
        return false;
      }),
    );
    assert.deepEqual([outcome.atMs, outcome.error?.message], [600, "volume is in error"]);
  });

  it("costs the simulator no event-loop turn for a check that finds nothing", async () => {
    const clock = new VirtualClock();
    let checks = 0;
    void pollImmediateUntil(clock, 300, 120_000, () => ++checks === 31);
    const before = clock.workDone();
    await clock.advanceBy(10_000);
    assert.equal(checks, 31);
    assert.equal(clock.workDone().tasks - before.tasks, 30);
    // One turn before the first check; the last check, which ends the wait, gets one for its waiter.
    assert.equal(clock.workDone().turns - before.turns, 2);
  });

  it("lets the waiter go on before the next task due at the instant the condition holds", async () => {
    const clock = new VirtualClock();
    const seen: string[] = [];
    let mounted = false;
    clock.setTimer(600, () => {
      mounted = true;
    });
    void pollImmediateUntil(clock, 300, 5_000, () => mounted).then(() => seen.push("containers started"));
    // Scheduled at 300 ms after the poll's check there, so due at 600 ms right after the poll's check.
    clock.setTimer(300, () => clock.setTimer(300, () => seen.push("next task at 600 ms")));
    await clock.advanceBy(10_000);
    assert.deepEqual(seen, ["containers started", "next task at 600 ms"]);
  });

  it("ends early with the condition's error", async () => {
    const clock = new VirtualClock();
    const outcome = await run(
      clock,
      pollImmediateUntil(clock, 300, 1_000, () => {
        throw new Error("PVC is not bound");
      }),
    );
    assert.deepEqual([outcome.atMs, outcome.error?.message], [0, "PVC is not bound"]);
  });

  it("times out when a check itself runs past the deadline, as a slow check on real time can", async () => {
    // A clock whose time the test moves by hand, so a check can take longer than the time left.
    let nowMs = 0;
    const pending: QuietTimerCallback[] = [];
    const clock: Clock = {
      now: () => nowMs,
      sleep: () => Promise.reject(new Error("not used")),
      setTimer: () => assert.fail("the poll sets only quiet timers"),
      setQuietTimer: (delayMs, fn) => {
        assert.ok(delayMs >= 0, `a timer was set ${delayMs} ms in the past`);
        pending.push(fn);
        return { cancel: () => undefined };
      },
      every: () => assert.fail("not used"),
    };
    let checks = 0;
    const wait = pollImmediateUntil(clock, 300, 1_000, () => {
      checks++;
      if (checks === 2) nowMs = 1_200; // the second check takes 900 ms
      return false;
    });
    nowMs = 300;
    pending.shift()?.();
    await assert.rejects(wait, { message: "timed out waiting for the condition" });
    assert.equal(pending.length, 0);
  });
});
