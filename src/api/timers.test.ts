import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_TIMERS, timersWith } from "./timers.ts";

describe("timers", () => {
  it("ships Kubernetes' defaults for the timers users meet in incidents", () => {
    assert.equal(DEFAULT_TIMERS.adcMaxWaitForUnmountMs, 360_000);
    assert.equal(DEFAULT_TIMERS.podAttachAndMountTimeoutMs, 123_000);
    assert.equal(DEFAULT_TIMERS.adcReconcilerLoopPeriodMs, 100);
    assert.equal(DEFAULT_TIMERS.pvControllerResyncPeriodMs, 15_000);
    assert.equal(DEFAULT_TIMERS.podGcPeriodMs, 20_000);
  });

  it("overrides named timers and keeps the rest", () => {
    const timers = timersWith({ adcMaxWaitForUnmountMs: 1_000 });
    assert.equal(timers.adcMaxWaitForUnmountMs, 1_000);
    assert.equal(timers.csiTimeoutMs, DEFAULT_TIMERS.csiTimeoutMs);
  });

  it("rejects a misspelt timer name instead of ignoring it", () => {
    assert.throws(() => timersWith({ adcMaxWaitForUnmount: 1 } as never), /unknown timer "adcMaxWaitForUnmount"/);
  });
});
