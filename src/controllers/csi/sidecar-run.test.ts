import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { SidecarRun } from "./sidecar-run.ts";

function newRun() {
  const clock = new VirtualClock({ startTimeMs: 0 });
  const sink = new MemorySink();
  const logger = new Logger({ clock, sink });
  const run = new SidecarRun({
    name: "external-test/x",
    driverName: "x",
    clock,
    logger,
    retryStartMs: 1_000,
    retryMaxMs: 4_000,
  });
  return { clock, sink, run };
}

describe("SidecarRun", () => {
  it("names its queues after the driver and retries a failed key with the sidecar's backoff", async () => {
    const { clock, sink, run } = newRun();
    const queue = run.newQueue("claims");
    assert.equal(queue.name, "claims (x)");
    const attemptsMs: number[] = [];
    run.start(() =>
      run.runWorkers(1, [
        {
          queue,
          process: async () => {
            attemptsMs.push(clock.now());
            if (attemptsMs.length < 3) throw new Error("driver busy");
          },
        },
      ]),
    );
    queue.add("uid-1");
    await clock.runFor(10_000);
    assert.deepEqual(attemptsMs, [0, 1_000, 3_000]);
    const failures = sink.records.filter((record) => record.message === "sync failed; retrying with backoff");
    assert.deepEqual(
      failures.map((record) => Object.fromEntries(record.fields).error),
      ["driver busy", "driver busy"],
    );
    await run.stop();
  });

  it("stops resyncing and shuts its queues down on stop, and refuses a second start", async () => {
    const { clock, run } = newRun();
    const queue = run.newQueue("volumes");
    let resyncs = 0;
    run.start(async () => {
      run.resyncEvery(1_000, () => resyncs++);
    });
    assert.throws(() => run.start(() => Promise.resolve()), /external-test\/x: start\(\) called twice/);
    await clock.runFor(2_500);
    assert.equal(resyncs, 3, "at once, then every second");
    await run.stop();
    assert.equal(run.isStopped, true);
    assert.equal(queue.isShuttingDown(), true);
    await clock.runFor(5_000);
    assert.equal(resyncs, 3, "no resync after stop");
  });
});
