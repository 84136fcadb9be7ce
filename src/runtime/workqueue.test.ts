import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ItemExponentialFailureRateLimiter } from "./rate-limiter.ts";
import { VirtualClock } from "./virtual-clock.ts";
import { WorkQueue } from "./workqueue.ts";

function newQueue(maxLength?: number): { queue: WorkQueue<string>; clock: VirtualClock } {
  const clock = new VirtualClock({ startTimeMs: 0 });
  const rateLimiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000);
  const queue = new WorkQueue<string>({ name: "test", clock, rateLimiter, ...(maxLength ? { maxLength } : {}) });
  return { queue, clock };
}

/** Resolves to what `promise` settled with, or "pending" if it has not settled after the microtasks ran. */
async function settledValue<T>(promise: Promise<T>): Promise<T | "pending"> {
  return Promise.race([promise, new Promise<"pending">((resolve) => setImmediate(() => resolve("pending")))]);
}

describe("WorkQueue adding and getting", () => {
  it("hands keys out in order and does not queue a pending key twice", async () => {
    const { queue } = newQueue();
    for (const key of ["a", "b", "a", "c", "b"]) queue.add(key);
    assert.equal(queue.len(), 3);
    assert.deepEqual([await queue.get(), await queue.get(), await queue.get()], ["a", "b", "c"]);
    assert.equal(queue.len(), 0);
  });

  it("never hands a key being processed to a second worker; a re-add waits for done", async () => {
    const { queue } = newQueue();
    queue.add("a");
    assert.equal(await queue.get(), "a");
    queue.add("a");
    queue.add("a");
    assert.equal(queue.len(), 0);
    const secondWorker = queue.get();
    assert.equal(await settledValue(secondWorker), "pending");
    queue.done("a");
    assert.equal(await settledValue(secondWorker), "a");
    queue.done("a");
    assert.equal(queue.len(), 0, "the two re-adds collapse into one");
  });

  it("wakes a waiting worker when a key is added", async () => {
    const { queue } = newQueue();
    const waiting = queue.get();
    assert.equal(await settledValue(waiting), "pending");
    queue.add("x");
    assert.equal(await waiting, "x");
  });

  it("refuses done for a key that is not being processed", () => {
    const { queue } = newQueue();
    assert.throws(
      () => queue.done("ghost"),
      /work queue test: done\(ghost\) called for a key that is not being processed/,
    );
  });

  it("enforces its maximum length", async () => {
    const { queue } = newQueue(2);
    queue.add("a");
    queue.add("b");
    queue.add("a");
    assert.throws(() => queue.add("c"), /add\(c\) would exceed maxLength 2/);
    assert.throws(() => queue.addAfter("d", 10), /addAfter\(d\) would exceed maxLength 2/);
  });
});

describe("WorkQueue delays", () => {
  it("adds a key only once its delay has passed, keeping the earliest of repeated delays", async () => {
    const { queue, clock } = newQueue();
    queue.addAfter("a", 100);
    queue.addAfter("a", 50);
    queue.addAfter("a", 80);
    await clock.advanceBy(49);
    assert.equal(queue.len(), 0);
    await clock.advanceBy(1);
    assert.equal(queue.len(), 1);
    await clock.runUntilIdle();
    assert.equal(queue.len(), 1, "the superseded delays must not add the key again");
    assert.equal(clock.now(), 50);
  });

  it("adds at once for a zero delay", () => {
    const { queue } = newQueue();
    queue.addAfter("a", 0);
    assert.equal(queue.len(), 1);
  });

  it("backs off rate-limited re-adds per key until forgotten", async () => {
    const { queue, clock } = newQueue();
    const readyTimes: number[] = [];
    for (let failure = 0; failure < 3; failure++) {
      queue.addRateLimited("a");
      await clock.runUntilIdle();
      readyTimes.push(clock.now());
      assert.equal(await queue.get(), "a");
      queue.done("a");
    }
    assert.deepEqual(readyTimes, [5, 15, 35]);
    assert.equal(queue.numRequeues("a"), 3);
    queue.forget("a");
    assert.equal(queue.numRequeues("a"), 0);
  });
});

describe("WorkQueue shutdown", () => {
  it("ignores new keys, drops delayed ones, and drains what is queued before returning undefined", async () => {
    const { queue, clock } = newQueue();
    queue.add("a");
    queue.addAfter("later", 10);
    queue.shutDown();
    queue.add("b");
    assert.equal(clock.pendingTimers(), 0);
    assert.equal(await queue.get(), "a");
    assert.equal(await queue.get(), undefined);
    assert.equal(queue.isShuttingDown(), true);
  });

  it("releases waiting workers with undefined", async () => {
    const { queue } = newQueue();
    const waiting = [queue.get(), queue.get()];
    queue.shutDown();
    assert.deepEqual(await Promise.all(waiting), [undefined, undefined]);
  });

  it("shutDownWithDrain resolves only after in-flight keys are done", async () => {
    const { queue } = newQueue();
    queue.add("a");
    await queue.get();
    const drained = queue.shutDownWithDrain();
    assert.equal(await settledValue(drained), "pending");
    queue.done("a");
    assert.equal(await settledValue(drained), undefined);
  });
});
