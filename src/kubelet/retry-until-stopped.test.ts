import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { VirtualClock } from "../runtime/virtual-clock.ts";
import { retryUntilStopped } from "./retry-until-stopped.ts";

describe("retryUntilStopped", () => {
  it("doubles the wait between failures (100, 200 ms) up to its 300 ms cap and returns the first success", async () => {
    const clock = new VirtualClock();
    const waits: number[] = [];
    let attempts = 0;
    const result = retryUntilStopped(
      { clock, initialMs: 100, maxMs: 300, keepTrying: () => true, onFailure: (_error, ms) => waits.push(ms) },
      async () => {
        attempts++;
        if (attempts < 4) throw new Error("API server unavailable");
        return "registered";
      },
    );
    await clock.advanceBy(1_000);
    assert.equal(await result, "registered");
    assert.deepEqual(waits, [100, 200, 300]);
  });

  it("gives up with undefined once the agent stops", async () => {
    const clock = new VirtualClock();
    let running = true;
    let attempts = 0;
    let failuresReported = 0;
    const result = retryUntilStopped(
      {
        clock,
        initialMs: 100,
        maxMs: 100,
        keepTrying: () => running,
        onFailure: () => {
          failuresReported++;
        },
      },
      async () => {
        attempts++;
        if (attempts === 2) running = false;
        throw new Error("still failing");
      },
    );
    await clock.advanceBy(1_000);
    assert.equal(await result, undefined);
    assert.equal(attempts, 2);
    assert.equal(failuresReported, 2);
  });
});
