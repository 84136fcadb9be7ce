import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { OperationAlreadyRunningError, OperationMap } from "./operation-map.ts";

function newMap(): { clock: VirtualClock; operations: OperationMap; logs: MemorySink } {
  const clock = new VirtualClock();
  const logs = new MemorySink();
  return { clock, operations: new OperationMap(clock, new Logger({ clock, sink: logs })), logs };
}

describe("OperationMap", () => {
  it("refuses a second operation with the same name while the first runs", async () => {
    const { clock, operations } = newMap();
    let finish: () => void = () => undefined;
    const started = operations.run("delete-pv-1[uid]", () => new Promise<void>((resolve) => (finish = resolve)));
    assert.equal(started, undefined);
    await clock.advanceBy(0);

    const refusal = operations.run("delete-pv-1[uid]", async () => undefined);
    assert.ok(refusal instanceof OperationAlreadyRunningError);
    assert.equal(
      refusal.message,
      'Failed to create operation with name "delete-pv-1[uid]". An operation with that name is already executing.',
    );
    assert.equal(
      operations.run("delete-pv-2[uid]", async () => undefined),
      undefined,
    );

    finish();
    await operations.waitForIdle();
    assert.equal(operations.isRunning("delete-pv-1[uid]"), false);
    assert.equal(
      operations.run("delete-pv-1[uid]", async () => undefined),
      undefined,
    );
  });

  it("backs a failed name off for 500 ms, then twice as long after each further failure", async () => {
    const { clock, operations, logs } = newMap();
    const failing = async (): Promise<void> => {
      throw new Error("disk quota exceeded");
    };
    assert.equal(operations.run("provision-ns/c[uid]", failing), undefined);
    await operations.waitForIdle();
    assert.match(logs.records.at(-1)?.message ?? "", /durationBeforeRetry 500ms\)\. Error: disk quota exceeded$/);

    await clock.advanceBy(500);
    assert.match(String(operations.run("provision-ns/c[uid]", failing)), /No retries permitted until/);
    await clock.advanceBy(1);
    assert.equal(operations.run("provision-ns/c[uid]", failing), undefined);
    await operations.waitForIdle();

    await clock.advanceBy(1000);
    assert.notEqual(operations.run("provision-ns/c[uid]", failing), undefined, "second backoff is 1 s");
    await clock.advanceBy(1);
    assert.equal(
      operations.run("provision-ns/c[uid]", async () => undefined),
      undefined,
    );
    await operations.waitForIdle();
    assert.equal(operations.run("provision-ns/c[uid]", failing), undefined, "success forgets the backoff");
  });
});
