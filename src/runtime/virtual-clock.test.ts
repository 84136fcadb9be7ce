import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultVirtualEpochMs, VirtualClock } from "./virtual-clock.ts";

/** Makes a failing loop pass fail the test instead of being reported and ignored. */
const failOnPassError = (error: unknown): never => {
  throw error;
};

const epochMs = Date.UTC(2026, 0, 1);

describe("VirtualClock time", () => {
  it("starts at 2026-01-01T00:00:00Z unless given another start", () => {
    assert.equal(new VirtualClock().now(), epochMs);
    assert.equal(defaultVirtualEpochMs, epochMs);
    assert.equal(new VirtualClock({ startTimeMs: 1234 }).now(), 1234);
  });

  it("does not move on its own", async () => {
    const clock = new VirtualClock();
    let fired = false;
    clock.setTimer(10, () => {
      fired = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(fired, false);
    assert.equal(clock.now(), epochMs);
  });

  it("advanceBy runs what is due, shows each task its due time, and ends exactly at now + ms", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    const seen: Array<[string, number]> = [];
    clock.setTimer(30, () => seen.push(["b", clock.now()]));
    clock.setTimer(10, () => seen.push(["a", clock.now()]));
    clock.setTimer(100, () => seen.push(["c", clock.now()]));
    const executed = await clock.advanceBy(50);
    assert.deepEqual(seen, [
      ["a", 10],
      ["b", 30],
    ]);
    assert.equal(executed, 2);
    assert.equal(clock.now(), 50);
    assert.equal(clock.pendingTimers(), 1);
    assert.equal(clock.nextDueTime(), 100);
    await clock.runFor(50);
    assert.deepEqual(seen.at(-1), ["c", 100]);
    assert.equal(clock.nextDueTime(), undefined);
  });

  it("runs timers due at the same instant in the order they were scheduled", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    const order: number[] = [];
    for (const id of [1, 2, 3, 4, 5]) clock.setTimer(5, () => order.push(id));
    await clock.advanceBy(5);
    assert.deepEqual(order, [1, 2, 3, 4, 5]);
  });

  it("runs a timer scheduled at the current instant in the same advance, after the earlier ones", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    const order: string[] = [];
    clock.setTimer(10, () => {
      order.push("first");
      clock.setTimer(0, () => order.push("scheduled-by-first"));
    });
    clock.setTimer(10, () => order.push("second"));
    await clock.advanceBy(10);
    assert.deepEqual(order, ["first", "second", "scheduled-by-first"]);
  });

  it("lets a task's promise chain settle before picking the next task", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    const seen: Array<[string, number]> = [];
    clock.setTimer(10, () => {
      void (async () => {
        for (let step = 0; step < 50; step++) await Promise.resolve();
        clock.setTimer(0, () => seen.push(["after-chain", clock.now()]));
      })();
    });
    clock.setTimer(20, () => seen.push(["later", clock.now()]));
    await clock.advanceBy(100);
    assert.deepEqual(seen, [
      ["after-chain", 10],
      ["later", 20],
    ]);
  });

  it("resolves sleep through a timer, only when time reaches it", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    let wokeAt: number | undefined;
    void clock.sleep(250).then(() => {
      wokeAt = clock.now();
    });
    assert.equal(clock.pendingTimers(), 1);
    await clock.advanceBy(249);
    assert.equal(wokeAt, undefined);
    await clock.advanceBy(1);
    assert.equal(wokeAt, 250);
  });

  it("cancels a timer so it never runs and no longer counts as pending", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    let ran = false;
    const timer = clock.setTimer(10, () => {
      ran = true;
    });
    timer.cancel();
    timer.cancel();
    assert.equal(clock.pendingTimers(), 0);
    await clock.runUntilIdle();
    assert.equal(ran, false);
  });

  it("runUntilIdle jumps to each due task and returns how many ran", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    const seen: number[] = [];
    clock.setTimer(60_000, () => {
      seen.push(clock.now());
      clock.setTimer(1_000, () => seen.push(clock.now()));
    });
    assert.equal(await clock.runUntilIdle(), 2);
    assert.deepEqual(seen, [60_000, 61_000]);
    assert.equal(clock.now(), 61_000);
  });

  it("rejects negative or non-finite delays with the argument named", () => {
    const clock = new VirtualClock();
    assert.throws(() => clock.setTimer(-1, () => undefined), /setTimer: delayMs must be a finite number >= 0, got -1/);
    assert.throws(() => clock.sleep(Number.NaN), /sleep: delayMs/);
    assert.throws(() => clock.every(Number.POSITIVE_INFINITY, () => undefined), /every: periodMs/);
  });
});

describe("VirtualClock run errors", () => {
  it("rejects the run when a timer callback throws", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    clock.setTimer(5, () => {
      throw new Error("boom");
    });
    await assert.rejects(clock.advanceBy(10), /boom/);
  });

  it("refuses a second run while one is in progress", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    clock.setTimer(5, () => undefined);
    const first = clock.advanceBy(10);
    await assert.rejects(clock.advanceBy(10), /already running tasks/);
    await first;
  });

  it("stops runUntilIdle on a never-ending loop with an error that says what to do", async () => {
    const clock = new VirtualClock({ onPassError: failOnPassError });
    clock.every(100, () => undefined);
    await assert.rejects(clock.runUntilIdle({ maxTasks: 25 }), /stopped after running 25 tasks.*advanceBy\/runFor/);
  });

  it("detects zero-delay rescheduling that never lets time move", async () => {
    const clock = new VirtualClock({ maxTasksAtOneInstant: 50, onPassError: failOnPassError });
    clock.every(0, () => undefined);
    await assert.rejects(clock.advanceBy(1), /more than 50 tasks ran at 2026-01-01T00:00:00.000Z/);
  });
});

describe("VirtualClock every (wait.Until)", () => {
  it("runs the first pass now and each next one a period after the previous pass settles", async () => {
    const clock = new VirtualClock({ startTimeMs: 0, onPassError: failOnPassError });
    const passStarts: number[] = [];
    clock.every(100, async () => {
      passStarts.push(clock.now());
      await clock.sleep(30);
    });
    await clock.advanceBy(400);
    assert.deepEqual(passStarts, [0, 130, 260, 390]);
  });

  it("keeps looping after a pass throws or rejects and reports each failure", async () => {
    const errors: unknown[] = [];
    const clock = new VirtualClock({ startTimeMs: 0, onPassError: (error) => errors.push(error) });
    let pass = 0;
    clock.every(10, async () => {
      pass++;
      if (pass === 1) throw new Error("rejected pass");
      await clock.sleep(0);
    });
    clock.every(10, () => {
      throw new Error("thrown pass");
    });
    await clock.advanceBy(20);
    assert.equal(pass, 3);
    assert.deepEqual(
      errors.map((error) => (error as Error).message),
      ["rejected pass", "thrown pass", "thrown pass", "thrown pass"],
    );
  });

  it("stops after cancel, including when cancelled during a pass", async () => {
    const clock = new VirtualClock({ startTimeMs: 0, onPassError: failOnPassError });
    let passes = 0;
    const loop = clock.every(10, async () => {
      passes++;
      await clock.sleep(5);
      if (passes === 2) loop.cancel();
    });
    await clock.advanceBy(100);
    assert.equal(passes, 2);
    assert.equal(clock.pendingTimers(), 0);
  });
});

/** A workload mixing plain timers, nested timers and loops whose passes sleep; returns its execution log. */
async function runMixedWorkload(): Promise<string[]> {
  const clock = new VirtualClock({ onPassError: failOnPassError });
  const log: string[] = [];
  const record = (what: string): void => {
    log.push(`${clock.now() - epochMs} ${what}`);
  };
  const loops = [
    clock.every(100, async () => {
      record("loop100 start");
      await clock.sleep(35);
      record("loop100 end");
    }),
    clock.every(60, async () => {
      record("loop60 start");
      await Promise.resolve();
      await clock.sleep(0);
      record("loop60 after sleep(0)");
    }),
    clock.every(250, () => record("loop250")),
  ];
  for (const delayMs of [0, 35, 60, 60, 135, 400]) {
    clock.setTimer(delayMs, () => {
      record(`timer ${delayMs}`);
      clock.setTimer(delayMs % 7, () => record(`nested of ${delayMs}`));
    });
  }
  void clock.sleep(135).then(async () => {
    record("sleeper woke");
    await clock.sleep(65);
    record("sleeper woke again");
  });
  await clock.advanceBy(1_000);
  for (const loop of loops) loop.cancel();
  await clock.runUntilIdle();
  return log;
}

describe("VirtualClock determinism", () => {
  it("gives the same execution log for the same workload", async () => {
    const first = await runMixedWorkload();
    const second = await runMixedWorkload();
    assert.ok(first.length > 50, `expected a busy log, got ${first.length} entries`);
    assert.deepEqual(second, first);
    assert.ok(first.includes("135 sleeper woke") && first.includes("200 sleeper woke again"));
  });
});
