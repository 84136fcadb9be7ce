import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Metrics } from "./metrics.ts";
import { ItemExponentialFailureRateLimiter } from "./rate-limiter.ts";
import { VirtualClock } from "./virtual-clock.ts";
import { WorkQueue } from "./workqueue.ts";

function value(text: string, line: string): string | undefined {
  return text
    .split("\n")
    .find((candidate) => candidate.startsWith(`${line} `))
    ?.slice(line.length + 1);
}

describe("workqueue_* metrics", () => {
  it("report depth, adds, retries and the waiting and working time on the queue's clock", async () => {
    const clock = new VirtualClock();
    const metrics = new Metrics();
    const queue = new WorkQueue<string>({
      name: "claims",
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1_000),
      metrics,
    });
    queue.add("default/data-0");
    queue.add("default/data-1");
    queue.add("default/data-0");
    let text = await metrics.exposition();
    assert.equal(value(text, 'workqueue_depth{name="claims"}'), "2");
    assert.equal(value(text, 'workqueue_adds_total{name="claims"}'), "2");
    await clock.advanceBy(3_000);
    const key = await queue.get();
    await clock.advanceBy(500);
    assert.equal(key, "default/data-0");
    queue.done("default/data-0");
    queue.addRateLimited("default/data-0");
    text = await metrics.exposition();
    assert.equal(value(text, 'workqueue_depth{name="claims"}'), "1");
    assert.equal(value(text, 'workqueue_retries_total{name="claims"}'), "1");
    assert.equal(value(text, 'workqueue_queue_duration_seconds_sum{name="claims"}'), "3");
    assert.equal(value(text, 'workqueue_work_duration_seconds_sum{name="claims"}'), "0.5");
    assert.equal(value(text, 'workqueue_work_duration_seconds_bucket{le="1",name="claims"}'), "1");
    assert.equal(value(text, 'workqueue_work_duration_seconds_bucket{le="0.1",name="claims"}'), "0");
  });
});
