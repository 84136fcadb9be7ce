import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SyncCancellation } from "./sync-cancellation.ts";

describe("SyncCancellation", () => {
  it("calls each listener once, in the order added, when the sync is abandoned", () => {
    const cancellation = new SyncCancellation();
    const heard: string[] = [];
    cancellation.onCancel(() => heard.push("mount wait"));
    cancellation.onCancel(() => heard.push("unmount wait"));
    assert.equal(cancellation.cancelled, false);
    cancellation.cancel();
    cancellation.cancel();
    assert.equal(cancellation.cancelled, true);
    assert.deepEqual(heard, ["mount wait", "unmount wait"]);
  });

  it("does not call a listener removed before, nor one added after, the cancellation", () => {
    const cancellation = new SyncCancellation();
    const heard: string[] = [];
    const settled = () => heard.push("settled wait");
    cancellation.onCancel(settled);
    cancellation.offCancel(settled);
    cancellation.cancel();
    cancellation.onCancel(() => heard.push("late wait"));
    assert.deepEqual(heard, []);
  });
});
