import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { afterIo, afterIoPending } from "./after-io.ts";
import { VirtualClock } from "./virtual-clock.ts";

/** Resolves on afterIo, as a group-committed write is acknowledged. */
function deferredWrite(): Promise<void> {
  return new Promise((resolve) => afterIo(resolve));
}

describe("afterIo", () => {
  it("runs after the current promise chains, and is pending until then", async () => {
    const order: string[] = [];
    afterIo(() => order.push("deferred"));
    assert.equal(afterIoPending(), true);
    await Promise.resolve();
    order.push("microtask");
    await deferredWrite();
    assert.deepEqual(order, ["microtask", "deferred"]);
    assert.equal(afterIoPending(), false);
  });

  it("lets a VirtualClock task's chain of deferred writes finish before the next task runs", async () => {
    const clock = new VirtualClock();
    const order: string[] = [];
    clock.setTimer(10, () => {
      void (async () => {
        for (let write = 1; write <= 5; write++) {
          await deferredWrite();
          order.push(`write ${write}`);
        }
      })();
    });
    clock.setTimer(10, () => order.push("next task"));
    await clock.runFor(10);
    assert.deepEqual(order, ["write 1", "write 2", "write 3", "write 4", "write 5", "next task"]);
  });
});
