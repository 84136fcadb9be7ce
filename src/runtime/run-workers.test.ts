import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ItemExponentialFailureRateLimiter } from "./rate-limiter.ts";
import { runWorkers } from "./run-workers.ts";
import { VirtualClock } from "./virtual-clock.ts";
import { WorkQueue } from "./workqueue.ts";

function newQueue(clock: VirtualClock): WorkQueue<string> {
  return new WorkQueue<string>({ name: "sync", clock, rateLimiter: new ItemExponentialFailureRateLimiter(5, 1_000) });
}

describe("runWorkers", () => {
  it("retries a failing key with backoff and forgets its failures once it succeeds", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    const queue = newQueue(clock);
    const attempts: Array<[string, number]> = [];
    const failures: string[] = [];
    const stopped = runWorkers(
      queue,
      2,
      (key) => {
        attempts.push([key, clock.now()]);
        if (key === "flaky" && attempts.filter(([seen]) => seen === "flaky").length < 3) throw new Error("not yet");
      },
      (key, error) => failures.push(`${key}: ${(error as Error).message}`),
    );
    queue.add("flaky");
    queue.add("steady");
    await clock.runUntilIdle();
    assert.deepEqual(attempts, [
      ["flaky", 0],
      ["steady", 0],
      ["flaky", 5],
      ["flaky", 15],
    ]);
    assert.deepEqual(failures, ["flaky: not yet", "flaky: not yet"]);
    assert.equal(queue.numRequeues("flaky"), 0);
    queue.shutDown();
    await stopped;
  });

  it("never runs the same key on two workers at once, yet processes a re-add made meanwhile", async () => {
    const clock = new VirtualClock({ startTimeMs: 0 });
    const queue = newQueue(clock);
    const inFlight = new Set<string>();
    let runs = 0;
    const stopped = runWorkers(queue, 4, async (key) => {
      assert.equal(inFlight.has(key), false, `${key} is already being handled`);
      inFlight.add(key);
      runs++;
      if (runs === 1) queue.add(key);
      await clock.sleep(10);
      inFlight.delete(key);
    });
    queue.add("pvc-1");
    await clock.runUntilIdle();
    assert.equal(runs, 2);
    assert.equal(clock.now(), 20, "the re-add ran after the first pass, not beside it");
    queue.shutDown();
    await stopped;
  });

  it("stops every worker when the queue shuts down", async () => {
    const queue = newQueue(new VirtualClock());
    const stopped = runWorkers(queue, 3, () => undefined);
    queue.shutDown();
    await stopped;
    assert.throws(() => runWorkers(queue, 0, () => undefined), /count must be a positive integer, got 0/);
  });
});
