import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
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

  it("times out at exactly the deadline with Kubernetes' text", async () => {
    const clock = new VirtualClock();
    const outcome = await run(
      clock,
      pollImmediateUntil(clock, 300, 1_000, () => false),
    );
    assert.equal(outcome.atMs, 1_000);
    assert.equal(outcome.error?.message, "timed out waiting for the condition");
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
});
