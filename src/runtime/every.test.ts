import assert from "node:assert/strict";
import { describe, it, mock } from "node:test";
import { reportPassErrorToStderr, startEveryLoop } from "./every.ts";
import { VirtualClock } from "./virtual-clock.ts";

describe("startEveryLoop", () => {
  it("does not run the first pass inside the call, but at the current time on the clock's next turn", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    const passes: number[] = [];
    startEveryLoop(
      (delayMs, fn) => clock.setTimer(delayMs, fn),
      50,
      () => {
        passes.push(clock.now());
      },
      assert.ifError,
    );
    assert.deepEqual(passes, []);
    await clock.advanceBy(100);
    assert.deepEqual(passes, [0, 50, 100]);
  });

  it("keeps looping even when the error handler itself throws", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    let passes = 0;
    startEveryLoop(
      (delayMs, fn) => clock.setTimer(delayMs, fn),
      10,
      () => {
        passes++;
        throw new Error("pass failed");
      },
      () => {
        throw new Error("handler failed");
      },
    );
    await assert.rejects(clock.advanceBy(0), /handler failed/);
    assert.equal(clock.pendingTimers(), 1, "the next pass was scheduled before the handler's error escaped");
    assert.equal(passes, 1);
  });

  it("rejects a negative period, naming it", () => {
    const clock = new VirtualClock();
    assert.throws(
      () =>
        startEveryLoop(
          (delayMs, fn) => clock.setTimer(delayMs, fn),
          -1,
          () => undefined,
          assert.ifError,
        ),
      /every: periodMs must be a finite number >= 0, got -1/,
    );
  });

  it("reports an unhandled pass error on stderr with its stack", () => {
    const write = mock.method(process.stderr, "write", () => true);
    try {
      reportPassErrorToStderr(new Error("disk full"));
      reportPassErrorToStderr("plain text");
    } finally {
      write.mock.restore();
    }
    const lines = write.mock.calls.map((call) => String(call.arguments[0]));
    assert.match(lines[0] ?? "", /^periodic loop pass failed \(the loop continues\): Error: disk full\n/);
    assert.equal(lines[1], "periodic loop pass failed (the loop continues): plain text\n");
  });
});
