import assert from "node:assert/strict";
import { describe, it, mock } from "node:test";
import { maxNodeTimerDelayMs, RealClock } from "./real-clock.ts";

/** Makes a failing loop pass fail the test instead of being reported and ignored. */
const failOnPassError = (error: unknown): never => {
  throw error;
};

describe("RealClock", () => {
  it("reads wall-clock time", () => {
    const before = Date.now();
    const seen = new RealClock().now();
    assert.ok(seen >= before && seen <= Date.now());
  });

  it("sleeps at least the requested time", async () => {
    const clock = new RealClock();
    const start = clock.now();
    await clock.sleep(20);
    // Node may fire a timer up to 1 ms early relative to Date.now's rounding.
    assert.ok(clock.now() - start >= 19, `slept ${clock.now() - start} ms`);
  });

  it("runs a timer once and never after it is cancelled", async () => {
    const clock = new RealClock();
    const fired: string[] = [];
    clock.setTimer(5, () => fired.push("kept"));
    clock.setTimer(5, () => fired.push("cancelled")).cancel();
    await clock.sleep(30);
    assert.deepEqual(fired, ["kept"]);
  });

  it("runs a quiet timer once, like any other, and never after it is cancelled", async () => {
    const clock = new RealClock();
    const fired: string[] = [];
    clock.setQuietTimer(5, () => fired.push("kept") < 0);
    clock.setQuietTimer(5, () => fired.push("cancelled") < 0).cancel();
    await clock.sleep(30);
    assert.deepEqual(fired, ["kept"]);
  });

  it("rejects a negative delay, naming the argument", () => {
    assert.throws(() => new RealClock().setTimer(-5, () => undefined), /setTimer: delayMs must be .* got -5/);
  });

  it("waits a full period after each pass ends before the next (wait.Until)", async () => {
    const clock = new RealClock({ onPassError: failOnPassError });
    const starts: number[] = [];
    const ends: number[] = [];
    const loop = clock.every(10, async () => {
      starts.push(clock.now());
      await clock.sleep(15);
      ends.push(clock.now());
    });
    await clock.sleep(120);
    loop.cancel();
    assert.ok(starts.length >= 2, `only ${starts.length} passes ran`);
    for (let pass = 1; pass < starts.length; pass++) {
      const gapMs = (starts[pass] as number) - (ends[pass - 1] as number);
      assert.ok(gapMs >= 9, `pass ${pass} started ${gapMs} ms after the previous pass ended`);
    }
  });

  it("keeps looping after a pass throws and reports the error", async () => {
    const errors: unknown[] = [];
    const clock = new RealClock({ onPassError: (error) => errors.push(error) });
    const loop = clock.every(1, () => {
      throw new Error("pass failed");
    });
    await clock.sleep(40);
    loop.cancel();
    const reported = errors.length;
    assert.ok(reported >= 2, `expected several reported failures, got ${reported}`);
    assert.equal((errors[0] as Error).message, "pass failed");
    await clock.sleep(20);
    assert.equal(errors.length, reported, "the loop ran after cancel");
  });

  it("splits delays longer than Node's timer limit instead of firing early", () => {
    mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
    try {
      const clock = new RealClock();
      let fired = false;
      clock.setTimer(maxNodeTimerDelayMs + 1_000, () => {
        fired = true;
      });
      mock.timers.tick(maxNodeTimerDelayMs);
      assert.equal(fired, false);
      mock.timers.tick(999);
      assert.equal(fired, false);
      mock.timers.tick(1);
      assert.equal(fired, true);
    } finally {
      mock.timers.reset();
    }
  });
});
