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
