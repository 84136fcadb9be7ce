import assert from "node:assert/strict";
import { createServer } from "node:net";
import { describe, it } from "node:test";
import { afterIo } from "./after-io.ts";
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

/** Runs `checks` checks `intervalMs` apart, each rescheduling the next; returns the turns the clock took. */
async function turnsForChecks(clock: VirtualClock, quiet: boolean, checks: number): Promise<number> {
  let left = checks;
  const check = (): boolean => {
    left--;
    if (left > 0) schedule();
    return false;
  };
  const schedule = (): void => {
    if (quiet) clock.setQuietTimer(10, check);
    else clock.setTimer(10, check);
  };
  schedule();
  const before = clock.workDone();
  await clock.advanceBy(10 * checks);
  assert.equal(left, 0);
  assert.equal(clock.workDone().tasks - before.tasks, checks);
  return clock.workDone().turns - before.turns;
}

describe("VirtualClock quiet timers", () => {
  it("takes no event-loop turn after a quiet timer that started nothing", async () => {
    // One turn before the first task, as always; then none between the hundred checks.
    assert.equal(await turnsForChecks(new VirtualClock({ startTimeMs: 0 }), true, 100), 1);
    assert.equal(await turnsForChecks(new VirtualClock({ startTimeMs: 0 }), false, 100), 101);
  });

  it("runs quiet and plain timers due at the same instant in the order they were scheduled", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    const order: string[] = [];
    const quiet = (name: string) => (): boolean => {
      order.push(name);
      return false;
    };
    clock.setTimer(5, () => order.push("plain 1"));
    clock.setQuietTimer(5, () => {
      order.push("quiet 1");
      clock.setQuietTimer(0, quiet("scheduled by quiet 1"));
      return false;
    });
    clock.setTimer(5, () => order.push("plain 2"));
    clock.setQuietTimer(5, quiet("quiet 2"));
    clock.setQuietTimer(4, quiet("quiet due earlier"));
    await clock.advanceBy(5);
    assert.deepEqual(order, ["quiet due earlier", "plain 1", "quiet 1", "plain 2", "quiet 2", "scheduled by quiet 1"]);
  });

  it("gives the turn to a quiet timer that settled a promise: its chain runs before the next task", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    const seen: string[] = [];
    let wake: () => void = () => undefined;
    void new Promise<void>((resolve) => {
      wake = resolve;
    }).then(async () => {
      for (let step = 0; step < 20; step++) await Promise.resolve();
      seen.push("chain ended");
    });
    clock.setQuietTimer(10, () => {
      wake();
      return true;
    });
    clock.setTimer(10, () => seen.push("next task"));
    await clock.advanceBy(10);
    assert.deepEqual(seen, ["chain ended", "next task"]);
  });

  it("still takes the turn when deferred work waits for it", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    const seen: string[] = [];
    clock.setQuietTimer(10, () => {
      afterIo(() => seen.push("deferred work"));
      return false;
    });
    clock.setTimer(10, () => seen.push("next task"));
    await clock.advanceBy(10);
    assert.deepEqual(seen, ["deferred work", "next task"]);
  });

  it("still takes a turn after each quiet timer while real I/O may answer", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      assert.equal(await turnsForChecks(new VirtualClock({ startTimeMs: 0 }), true, 20), 21);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("rejects the run when a quiet timer callback throws", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    clock.setQuietTimer(5, () => {
      throw new Error("boom");
    });
    await assert.rejects(clock.advanceBy(10), /boom/);
  });

  it("gives the same execution log as plain timers for a workload whose idle checks are quiet", async () => {
    const plain = await runMixedWorkload(false);
    const quiet = await runMixedWorkload(true);
    assert.ok(plain.includes("130 poll met") && plain.includes("130 poll waiter resumed"), plain.join("\n"));
    assert.deepEqual(quiet, plain);
  });
});

describe("VirtualClock workDone", () => {
  it("counts the wait for deferred work as an event-loop turn", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    let wake: () => void = () => undefined;
    void new Promise<void>((resolve) => {
      wake = resolve;
    }).then(() => afterIo(() => undefined));
    clock.setTimer(10, wake);
    await clock.advanceBy(10);
    // The turn before the task; after it, the turn that starts the deferred work, the wait for it,
    // and the turn that finds nothing more.
    assert.deepEqual(clock.workDone(), { tasks: 1, turns: 4 });
  });
});

describe("VirtualClock checkQuietTimers", () => {
  /** A quiet callback that breaks the contract: it wakes a chain that does `then`, yet returns false. */
  function lyingQuietTimer(clock: VirtualClock, then: () => void): void {
    let wake: () => void = () => undefined;
    void new Promise<void>((resolve) => {
      wake = resolve;
    }).then(then);
    clock.setQuietTimer(10, () => {
      wake();
      return false;
    });
  }

  it("fails the run when a quiet timer that returned false settled a promise whose chain set a timer", async () => {
    const clock = new VirtualClock({ startTimeMs: 0, checkQuietTimers: true });
    lyingQuietTimer(clock, () => clock.setTimer(5, () => undefined));
    await assert.rejects(
      clock.advanceBy(20),
      /quiet timer due at 1970-01-01T00:00:00\.010Z returned false .* the event-loop turn after it scheduled a timer/,
    );
  });

  it("fails the run when that chain left after-io work pending", async () => {
    const clock = new VirtualClock({ startTimeMs: 0, checkQuietTimers: true });
    lyingQuietTimer(clock, () => afterIo(() => undefined));
    await assert.rejects(clock.advanceBy(20), /the event-loop turn after it left after-io work pending/);
  });

  it("lets honest quiet timers run, with the same log as without the check", async () => {
    const checked = new VirtualClock({ startTimeMs: 0, checkQuietTimers: true });
    assert.equal(await turnsForChecks(checked, true, 100), 101);
    assert.deepEqual(await runMixedWorkload(true, true), await runMixedWorkload(true));
  });
});

/** A workload mixing plain timers, nested timers and loops whose passes sleep; returns its execution log. */
async function runMixedWorkload(quietChecks = false, checkQuietTimers = false): Promise<string[]> {
  const clock = new VirtualClock({ onPassError: failOnPassError, checkQuietTimers });
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
  // A poll checking every 13 ms until its 10th check: idle checks start nothing, the last wakes a waiter.
  let checks = 0;
  const poll = new Promise<void>((resolve) => {
    const check = (): boolean => {
      checks++;
      if (checks === 10) {
        record("poll met");
        resolve();
        return true;
      }
      schedule();
      return false;
    };
    const schedule = (): void => {
      if (quietChecks) clock.setQuietTimer(13, check);
      else clock.setTimer(13, check);
    };
    schedule();
  });
  void poll.then(() => {
    record("poll waiter resumed");
    clock.setTimer(0, () => record("timer set by the poll waiter"));
  });
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
