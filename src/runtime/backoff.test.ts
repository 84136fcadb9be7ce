import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ExponentialBackoff,
  ExponentialBackoffError,
  initialDurationBeforeRetryMs,
  maxDurationBeforeRetryMs,
} from "./backoff.ts";

const start = Date.UTC(2026, 0, 1);

describe("ExponentialBackoff", () => {
  it("waits 500 ms after the first failure, doubling to a 2m2s cap", () => {
    const backoff = new ExponentialBackoff();
    const durations: number[] = [];
    for (let failure = 0; failure < 11; failure++) {
      backoff.update(new Error("boom"), start);
      durations.push(backoff.durationBeforeRetryMs);
    }
    assert.deepEqual(durations, [500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 122_000, 122_000, 122_000]);
    assert.equal(initialDurationBeforeRetryMs, 500);
    assert.equal(maxDurationBeforeRetryMs, 122_000);
  });

  it("is safe to retry before any failure and only strictly after the backoff has passed", () => {
    const backoff = new ExponentialBackoff();
    assert.equal(backoff.safeToRetry(start), true);
    backoff.update(new Error("boom"), start);
    assert.equal(backoff.safeToRetry(start + 499), false);
    assert.equal(backoff.safeToRetry(start + 500), false, "exactly the backoff is still too early");
    assert.equal(backoff.safeToRetry(start + 501), true);
  });

  it("refuses a retry with Kubernetes' message, word for word", () => {
    const backoff = new ExponentialBackoff();
    backoff.update(new Error("rpc error: code = Internal desc = mount failed"), start);
    backoff.update(new Error('exit status 32: "mount.nfs" not found'), start + 1_000);
    const refusal = backoff.retryError("volume_mount", start + 1_500);
    assert.ok(refusal instanceof ExponentialBackoffError);
    assert.equal(refusal.operationName, "volume_mount");
    assert.equal(
      refusal.message,
      'Failed to create operation with name "volume_mount". An operation with that name failed at ' +
        "2026-01-01 00:00:01 +0000 UTC. No retries permitted until 2026-01-01 00:00:02 +0000 UTC (1s). " +
        'Last error: "exit status 32: \\"mount.nfs\\" not found".',
    );
    assert.equal(backoff.retryError("volume_mount", start + 2_001), undefined);
  });

  it("writes the completion line with the retry time and duration", () => {
    const backoff = new ExponentialBackoff();
    for (let failure = 0; failure < 9; failure++) backoff.update("timed out", start);
    assert.equal(
      backoff.completionMessage("kubernetes.io/csi/driver^vol-1"),
      'Operation for "kubernetes.io/csi/driver^vol-1" failed. No retries permitted until ' +
        "2026-01-01 00:02:02 +0000 UTC (durationBeforeRetry 2m2s). Error: timed out",
    );
  });
});
