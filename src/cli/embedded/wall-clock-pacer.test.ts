import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RealClock } from "../../runtime/real-clock.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { waitFor } from "../testing/wait-for.ts";
import { WallClockPacer } from "./wall-clock-pacer.ts";

describe("wall clock pacer", () => {
  it("fires the virtual clock's timers when their wall-clock moment comes, not before", async () => {
    const real = new RealClock();
    const virtual = new VirtualClock({ startTimeMs: real.now() });
    const errors: unknown[] = [];
    const pacer = new WallClockPacer({ virtual, real, onTaskError: (error) => errors.push(error) });
    const startMs = real.now();
    let firedAtMs: number | undefined;
    virtual.setTimer(200, () => {
      firedAtMs = real.now();
    });
    pacer.start();
    try {
      const firedMs = await waitFor("the 200 ms timer", () => firedAtMs, 5_000);
      assert.ok(firedMs - startMs >= 200, `fired after ${firedMs - startMs} ms`);
      assert.ok(Math.abs(virtual.now() - real.now()) < 1_000, "virtual time follows the wall clock");
    } finally {
      await pacer.stop();
    }
    assert.deepEqual(errors, []);
  });

  it("runs work queued from outside (a zero-delay timer) promptly, and reports a failing timer without stopping", async () => {
    const real = new RealClock();
    const virtual = new VirtualClock({ startTimeMs: real.now() });
    const errors: unknown[] = [];
    const pacer = new WallClockPacer({ virtual, real, onTaskError: (error) => errors.push(error) });
    pacer.start();
    try {
      virtual.setTimer(0, () => {
        throw new Error("timer failed");
      });
      let ran = false;
      virtual.setTimer(0, () => {
        ran = true;
      });
      await waitFor("the queued timer", () => ran || undefined, 5_000);
      await waitFor("the failure reported", () => errors.length > 0 || undefined, 5_000);
      assert.match(String(errors[0]), /timer failed/);
    } finally {
      await pacer.stop();
    }
    let afterStop = false;
    virtual.setTimer(0, () => {
      afterStop = true;
    });
    await real.sleep(50);
    assert.equal(afterStop, false, "a stopped pacer leaves the clock alone");
  });
});

describe("wall clock pacer at a speed", () => {
  it("runs a 5-minute timer in a fraction of that at speed 600, and follows a change of speed", async () => {
    const real = new RealClock();
    const virtual = new VirtualClock({ startTimeMs: real.now() });
    const pacer = new WallClockPacer({ virtual, real, onTaskError: (error) => assert.fail(String(error)), speed: 600 });
    const startRealMs = real.now();
    const startVirtualMs = virtual.now();
    let firedAtRealMs: number | undefined;
    virtual.setTimer(5 * 60_000, () => {
      firedAtRealMs = real.now();
    });
    pacer.start();
    try {
      // 5 min at 600× is 500 ms of wall time: well before the 5 minutes a speed of 1 would take.
      const firedMs = await waitFor("the 5-minute timer", () => firedAtRealMs, 60_000);
      assert.ok(firedMs - startRealMs >= 500, `fired after ${firedMs - startRealMs} ms of wall time, before its time`);
      assert.equal(pacer.speed, 600);

      pacer.setSpeed(1);
      // The clock first catches up with where 600× had brought it by the change.
      await real.sleep(50);
      const slowedAtRealMs = real.now();
      const slowedAtVirtualMs = virtual.now();
      await real.sleep(300);
      const virtualElapsedMs = virtual.now() - slowedAtVirtualMs;
      assert.ok(
        virtualElapsedMs <= real.now() - slowedAtRealMs + 100,
        `at speed 1 the clock moved ${virtualElapsedMs} ms in ${real.now() - slowedAtRealMs} ms`,
      );
      assert.ok(virtual.now() - startVirtualMs >= 5 * 60_000, "time already passed stays passed");
    } finally {
      await pacer.stop();
    }
    assert.throws(() => pacer.setSpeed(0), /the speed must be a number from 0.1 to 1000, got 0/);
    assert.throws(() => pacer.setSpeed(5000), /from 0.1 to 1000, got 5000/);
  });
});
