import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "./rng.ts";
import { VirtualClock } from "./virtual-clock.ts";
import {
  Backoff,
  csiVolumeAttachmentPollBackoff,
  exponentialBackoffWait,
  rbdImageWatcherBackoff,
  WaitTimeoutError,
} from "./wait-backoff.ts";

function steps(backoff: Backoff, count: number): number[] {
  return Array.from({ length: count }, () => backoff.step());
}

describe("Backoff", () => {
  it("grows by the factor and holds the last value once its steps are used", () => {
    const backoff = new Backoff({ initialMs: 100, factor: 2, steps: 3 }, new Rng(1));
    assert.deepEqual(steps(backoff, 5), [100, 200, 400, 800, 800]);
  });

  it("stops growing at the cap", () => {
    const backoff = new Backoff({ initialMs: 1_000, factor: 3, capMs: 5_000 }, new Rng(1));
    assert.deepEqual(steps(backoff, 4), [1_000, 3_000, 5_000, 5_000]);
    assert.equal(backoff.remainingSteps, 0);
  });

  it("adds up to jitter × delay, reproducibly from the seed", () => {
    const options = { initialMs: 1_000, factor: 1, jitter: 0.1 };
    const first = steps(new Backoff(options, new Rng(5)), 50);
    assert.deepEqual(steps(new Backoff(options, new Rng(5)), 50), first);
    for (const delayMs of first) assert.ok(delayMs >= 1_000 && delayMs < 1_100, `${delayMs} outside [1000, 1100)`);
    assert.ok(new Set(first).size > 40, "jitter should vary the delays");
  });

  it("follows the CSI VolumeAttachment poll: ×1.05 up to 7 s, back to 500 ms after a minute idle", async () => {
    const clock = new VirtualClock();
    const backoff = new Backoff({ ...csiVolumeAttachmentPollBackoff, jitter: 0 }, new Rng(1), clock);
    const delays = steps(backoff, 60);
    assert.equal(delays[0], 500);
    assert.ok(Math.abs((delays[1] as number) - 525) < 1e-9);
    assert.equal(delays.at(-1), 7_000);
    assert.ok(delays.every((delayMs) => delayMs <= 7_000));
    await clock.advanceBy(60_001);
    assert.equal(backoff.step(), 500);
  });

  it("does not reset when steps come less than the reset time apart", async () => {
    const clock = new VirtualClock();
    const backoff = new Backoff({ initialMs: 500, factor: 2, resetAfterMs: 60_000 }, new Rng(1), clock);
    backoff.step();
    await clock.advanceBy(60_000);
    assert.equal(backoff.step(), 1_000);
  });

  it("names every invalid option", () => {
    assert.throws(
      () => new Backoff({ initialMs: -1, factor: 2, steps: 0, resetAfterMs: 10 }, new Rng(1)),
      /initialMs must be >= 0; steps must be an integer >= 1; resetAfterMs needs a clock/,
    );
  });
});

describe("exponentialBackoffWait", () => {
  it("gives up after the RBD watcher's 10 checks and 9 growing sleeps", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    const checkTimes: number[] = [];
    const waiting = exponentialBackoffWait(clock, new Backoff(rbdImageWatcherBackoff, new Rng(1)), () => {
      checkTimes.push(clock.now());
      return false;
    });
    const outcome = assert.rejects(waiting, WaitTimeoutError);
    await clock.runUntilIdle();
    await outcome;
    assert.equal(checkTimes.length, 10);
    assert.equal(checkTimes[1], 1_000);
    assert.ok(Math.abs((checkTimes[2] as number) - 2_400) < 1e-6);
    assert.ok(Math.abs((checkTimes.at(-1) as number) - 49_152.6) < 1, `last check at ${checkTimes.at(-1)}`);
  });

  it("resolves as soon as the condition holds", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    let checks = 0;
    const waiting = exponentialBackoffWait(clock, new Backoff(rbdImageWatcherBackoff, new Rng(1)), async () => {
      checks++;
      return checks === 3;
    });
    await clock.runUntilIdle();
    await waiting;
    assert.equal(checks, 3);
    assert.equal(clock.now(), 2_400);
  });

  it("needs a bounded number of steps", async () => {
    const backoff = new Backoff({ initialMs: 1, factor: 1 }, new Rng(1));
    await assert.rejects(
      exponentialBackoffWait(new VirtualClock(), backoff, () => false),
      /needs a finite `steps`/,
    );
  });
});
