import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_TIMERS } from "../../api/timers.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { type QueuedPod, SchedulingQueue } from "./scheduling-queue.ts";

function newQueue(): { clock: VirtualClock; queue: SchedulingQueue } {
  const clock = new VirtualClock({ startTimeMs: 0 });
  const queue = new SchedulingQueue({
    clock,
    initialBackoffMs: DEFAULT_TIMERS.schedulerPodInitialBackoffMs,
    maxBackoffMs: DEFAULT_TIMERS.schedulerPodMaxBackoffMs,
    backoffFlushPeriodMs: DEFAULT_TIMERS.schedulerBackoffFlushPeriodMs,
    unschedulableFlushPeriodMs: DEFAULT_TIMERS.schedulerUnschedulableFlushPeriodMs,
    maxInUnschedulableMs: DEFAULT_TIMERS.schedulerMaxInUnschedulablePodsMs,
    maxPods: 10,
  });
  return { clock, queue };
}

async function popNow(queue: SchedulingQueue): Promise<QueuedPod> {
  const pod = await queue.pop();
  assert.ok(pod, "expected a pod to be ready");
  return pod;
}

/** The virtual time at which the queue next hands out a pod. */
async function timeOfNextPop(clock: VirtualClock, queue: SchedulingQueue): Promise<number> {
  let poppedAt: number | undefined;
  void queue.pop().then(() => {
    poppedAt = clock.now();
  });
  for (let step = 0; step < 1_000 && poppedAt === undefined; step++) await clock.advanceBy(1_000);
  assert.ok(poppedAt !== undefined, "the pod was never handed out");
  return poppedAt;
}

describe("SchedulingQueue", () => {
  it("hands out new pods in arrival order, once each", async () => {
    const { queue } = newQueue();
    queue.add("shop/a");
    queue.add("shop/b");
    queue.add("shop/a");
    assert.equal((await popNow(queue)).key, "shop/a");
    assert.equal((await popNow(queue)).key, "shop/b");
    assert.deepEqual(queue.counts(), { active: 0, backoff: 0, unschedulable: 0, inFlight: 2 });
  });

  it("doubles the backoff from 1 s per attempt up to 10 s", () => {
    const { queue } = newQueue();
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((attempts) => queue.backoffDurationMs(attempts)),
      [1_000, 2_000, 4_000, 8_000, 10_000, 10_000],
    );
  });

  it("keeps an unschedulable pod until a cluster event, then respects its backoff", async () => {
    const { clock, queue } = newQueue();
    queue.add("shop/a");
    const pod = await popNow(queue);
    queue.requeueFailed(pod, false);
    assert.equal(queue.location("shop/a"), "unschedulable");
    await clock.advanceBy(200_000);
    assert.equal(queue.location("shop/a"), "unschedulable");

    queue.moveAllToActiveOrBackoff();
    assert.equal(queue.location("shop/a"), "active", "its 1 s backoff ended long ago");
  });

  it("wakes only the unschedulable pods an event can help, in their order of arrival", async () => {
    const { clock, queue } = newQueue();
    for (const name of ["a", "b", "c"]) queue.add(`shop/${name}`);
    for (let i = 0; i < 3; i++) queue.requeueFailed(await popNow(queue), false);
    await clock.advanceBy(200_000);

    queue.movePodsToActiveOrBackoff(["shop/c", "shop/missing", "shop/a", "shop/c"]);
    assert.equal(queue.location("shop/b"), "unschedulable", "the event cannot help b");
    assert.equal((await popNow(queue)).key, "shop/a");
    assert.equal((await popNow(queue)).key, "shop/c");
    assert.deepEqual(queue.counts(), { active: 0, backoff: 0, unschedulable: 1, inFlight: 2 });
  });

  it("sends a pod that failed while an event arrived during its attempt to backoff, not to wait for another event", async () => {
    const { clock, queue } = newQueue();
    queue.add("shop/a");
    const pod = await popNow(queue);
    queue.moveAllToActiveOrBackoff();
    queue.requeueFailed(pod, false);
    assert.equal(queue.location("shop/a"), "backoff");
    assert.equal(await timeOfNextPop(clock, queue), 1_000);
  });

  it("backs off a pod whose attempt failed with an error, longer after each attempt", async () => {
    const { clock, queue } = newQueue();
    queue.add("shop/a");
    const first = await popNow(queue);
    queue.requeueFailed(first, true);
    assert.equal(await timeOfNextPop(clock, queue), 1_000);
    const failedAtMs = clock.now();
    queue.requeueFailed(first, true);
    assert.equal((await timeOfNextPop(clock, queue)) - failedAtMs, 2_000);
  });

  it("retries a pod left unschedulable for more than 5 minutes at the next 30 s flush", async () => {
    const { clock, queue } = newQueue();
    queue.add("shop/a");
    queue.requeueFailed(await popNow(queue), false);
    assert.equal(await timeOfNextPop(clock, queue), 330_000);
  });

  it("forgets a deleted pod wherever it waits", async () => {
    const { clock, queue } = newQueue();
    queue.add("shop/a");
    queue.add("shop/b");
    queue.delete("shop/a");
    assert.equal((await popNow(queue)).key, "shop/b");
    queue.add("shop/c");
    const c = await popNow(queue);
    queue.requeueFailed(c, true);
    queue.delete("shop/c");
    await clock.advanceBy(20_000);
    assert.deepEqual(queue.counts(), { active: 0, backoff: 0, unschedulable: 0, inFlight: 1 });
  });

  it("wakes a waiting pop when a pod arrives, and ends it when closed", async () => {
    const { queue } = newQueue();
    const waiting = queue.pop();
    queue.add("shop/a");
    assert.equal((await waiting)?.key, "shop/a");
    const afterClose = queue.pop();
    queue.close();
    assert.equal(await afterClose, undefined);
  });

  it("refuses more pending pods than its bound", () => {
    const { queue } = newQueue();
    for (let index = 0; index < 10; index++) queue.add(`shop/p${index}`);
    assert.throws(() => queue.add("shop/one-too-many"), /more than 10 pending pods/);
  });
});
