import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RestartBackoff } from "./restart-backoff.ts";

describe("RestartBackoff", () => {
  it("restarts at once the first time, then waits 10 s doubling to 5 min from the last exit", () => {
    const backoff = new RestartBackoff();
    assert.equal(backoff.remainingMs("p/c", 0, 0), 0);
    backoff.next("p/c", 0);
    assert.equal(backoff.remainingMs("p/c", 1_000, 3_000), 8_000);
    const delays: number[] = [];
    for (let restart = 0; restart < 8; restart++) {
      delays.push(backoff.currentMs("p/c"));
      backoff.next("p/c", 60_000 * restart);
    }
    assert.deepEqual(delays, [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
  });

  it("starts over after 10 minutes without a restart", () => {
    const backoff = new RestartBackoff();
    backoff.next("p/c", 0);
    backoff.next("p/c", 1_000);
    assert.equal(backoff.currentMs("p/c"), 20_000);
    assert.equal(backoff.remainingMs("p/c", 700_000, 700_000), 0);
    backoff.next("p/c", 700_000);
    assert.equal(backoff.currentMs("p/c"), 10_000);
  });
});
