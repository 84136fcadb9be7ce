/**
 * Same seed, same timeline: a workload that mixes timers, `every` loops, a rate-limited work
 * queue with failing keys, and store writes and watches, run twice on fresh VirtualClocks with the
 * same seed, produces the same log line for line; another seed produces a different one.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InProcessClient } from "./api/client/in-process-client.ts";
import type { ConfigMap } from "./api/objects.ts";
import { createMemoryStore } from "./api/store/memory-store.ts";
import { Logger, MemorySink } from "./runtime/logger.ts";
import { defaultControllerRateLimiter } from "./runtime/rate-limiter.ts";
import { Rng } from "./runtime/rng.ts";
import { runWorkers } from "./runtime/run-workers.ts";
import { VirtualClock } from "./runtime/virtual-clock.ts";
import { WorkQueue } from "./runtime/workqueue.ts";

const workloadDurationMs = 30_000;

async function runWorkload(seed: number): Promise<string[]> {
  const clock = new VirtualClock();
  const rng = new Rng(seed);
  const sink = new MemorySink();
  const logger = new Logger({ clock, sink, level: "debug" });
  const store = createMemoryStore({ clock, random: rng.stream("store") });
  const client = new InProcessClient(store);
  const draws = rng.stream("workload");

  const watch = await client.configMaps.watch({ namespace: "default" }, (event) => {
    logger.info("watch", {
      type: event.type,
      name: event.object.metadata?.name,
      rv: event.object.metadata?.resourceVersion,
    });
  });

  const queue = new WorkQueue<string>({ name: "work", clock, rateLimiter: defaultControllerRateLimiter(clock) });
  const attempts = new Map<string, number>();
  const workers = runWorkers(
    queue,
    2,
    async (key) => {
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      await clock.sleep(draws.int(1, 50));
      if (draws.chance(0.3)) throw new Error(`transient failure of ${key} on attempt ${attempt}`);
      const configMap: ConfigMap = {
        metadata: { namespace: "default", generateName: `${key}-` },
        data: { attempt: String(attempt) },
      };
      const created = await client.configMaps.create(configMap);
      logger.info("synced", { key, attempt, name: created.metadata?.name });
    },
    (key, error) => logger.warn("requeued", { key, error: String(error) }),
  );

  const loop = clock.every(1_000, async () => {
    const key = `item-${draws.int(0, 4)}`;
    queue.add(key);
    logger.debug("enqueued", { key });
  });
  clock.setTimer(draws.int(0, 10_000), () => logger.info("one-shot timer fired"));

  await clock.advanceBy(workloadDurationMs);
  loop.cancel();
  queue.shutDown();
  await clock.runUntilIdle();
  await workers;
  watch.stop();
  await store.close();
  return sink.lines();
}

describe("determinism", () => {
  it("gives an identical log for the same seed", async () => {
    const first = await runWorkload(42);
    const second = await runWorkload(42);
    assert.ok(first.length > 50, `the workload should do real work, logged ${first.length} lines`);
    assert.ok(
      first.some((line) => line.includes("requeued")),
      "some keys fail and are retried with backoff",
    );
    assert.ok(
      first.some((line) => line.includes("watch")),
      "store writes reach the watch",
    );
    assert.deepEqual(second, first);
  });

  it("gives a different timeline for a different seed", async () => {
    assert.notDeepEqual(await runWorkload(7), await runWorkload(42));
  });
});
