import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ParkingLoop, type PassVerdict } from "./parking-loop.ts";
import { VirtualClock } from "./virtual-clock.ts";

function loop(verdicts: () => PassVerdict): { clock: VirtualClock; loop: ParkingLoop; passTimes: number[] } {
  const clock = new VirtualClock();
  const start = clock.now();
  const passTimes: number[] = [];
  const parking = new ParkingLoop(
    clock,
    100,
    async () => {
      passTimes.push(clock.now() - start);
      return verdicts();
    },
    (err) => assert.fail(String(err)),
  );
  return { clock, loop: parking, passTimes };
}

describe("ParkingLoop", () => {
  it("runs every period while busy", async () => {
    const { clock, loop: parking, passTimes } = loop(() => ({ busy: true }));
    parking.start();
    await clock.advanceBy(350);
    assert.deepEqual(passTimes, [0, 100, 200, 300]);
    await parking.stop();
  });

  it("parks when idle and runs at the next tick of the period when woken", async () => {
    const { clock, loop: parking, passTimes } = loop(() => ({ busy: false }));
    parking.start();
    await clock.advanceBy(1_000);
    assert.deepEqual(passTimes, [0], "parked after the first idle pass");
    await clock.advanceBy(234);
    parking.wake();
    await clock.advanceBy(1_000);
    assert.deepEqual(passTimes, [0, 1_300], "the always-running loop would have run at 1,300 ms");
    await parking.stop();
  });

  it("sees a change made at the very instant of a tick at the following tick", async () => {
    const { clock, loop: parking, passTimes } = loop(() => ({ busy: false }));
    parking.start();
    await clock.advanceBy(300);
    parking.wake();
    await clock.advanceBy(1_000);
    assert.deepEqual(passTimes, [0, 400], "the 300 ms pass ran before the change");
    await parking.stop();
  });

  it("wakes itself at the first tick at or after the time it asked for", async () => {
    const { clock, loop: parking, passTimes } = loop(() => ({ busy: false, wakeAtMs: clock.now() + 60_001 }));
    parking.start();
    await clock.advanceBy(130_000);
    assert.deepEqual(passTimes, [0, 60_100, 120_200]);
    await parking.stop();
  });

  it("does not park after a pass during which it was woken", async () => {
    let wakeDuringPass = true;
    const {
      clock,
      loop: parking,
      passTimes,
    } = loop(() => {
      if (wakeDuringPass) {
        wakeDuringPass = false;
        parking.wake();
      }
      return { busy: false };
    });
    parking.start();
    await clock.advanceBy(1_000);
    assert.deepEqual(passTimes, [0, 100]);
    await parking.stop();
  });
});
