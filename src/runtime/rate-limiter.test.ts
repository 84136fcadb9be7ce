import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
} from "./rate-limiter.ts";
import { VirtualClock } from "./virtual-clock.ts";

describe("ItemExponentialFailureRateLimiter", () => {
  it("doubles per failure of the same key up to the cap, independently per key", () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 100);
    const delays = Array.from({ length: 7 }, () => limiter.when("a"));
    assert.deepEqual(delays, [5, 10, 20, 40, 80, 100, 100]);
    assert.equal(limiter.numRequeues("a"), 7);
    assert.equal(limiter.when("b"), 5);
  });

  it("starts over after forget and survives huge failure counts", () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    for (let failure = 0; failure < 2_000; failure++) limiter.when("a");
    assert.equal(limiter.when("a"), 1_000_000);
    limiter.forget("a");
    assert.equal(limiter.numRequeues("a"), 0);
    assert.equal(limiter.when("a"), 5);
  });

  it("rejects a cap below the base delay", () => {
    assert.throws(
      () => new ItemExponentialFailureRateLimiter(10, 5),
      /need 0 < baseDelayMs <= maxDelayMs, got 10 and 5/,
    );
  });
});

describe("BucketRateLimiter", () => {
  it("lets a burst through, then spaces requests at the rate, refilling over time", async () => {
    const clock = new VirtualClock();
    const limiter = new BucketRateLimiter<string>(1, 3, clock);
    assert.deepEqual(
      Array.from({ length: 5 }, (_, index) => limiter.when(`key-${index}`)),
      [0, 0, 0, 1_000, 2_000],
    );
    await clock.advanceBy(5_000);
    assert.deepEqual(
      Array.from({ length: 4 }, () => limiter.when("later")),
      [0, 0, 0, 1_000],
    );
    assert.equal(limiter.numRequeues("later"), 0);
  });

  it("rejects a non-positive rate or burst", () => {
    assert.throws(() => new BucketRateLimiter(0, 1, new VirtualClock()), /need qps > 0 and an integer burst >= 1/);
  });
});

describe("MaxOfRateLimiter and the default controller limiter", () => {
  it("waits for the slowest limiter", () => {
    const limiter = new MaxOfRateLimiter<string>(
      new ItemExponentialFailureRateLimiter(5, 1_000),
      new ItemExponentialFailureRateLimiter(50, 60),
    );
    assert.deepEqual([limiter.when("a"), limiter.when("a"), limiter.when("a")], [50, 60, 60]);
    assert.equal(limiter.numRequeues("a"), 3);
    limiter.forget("a");
    assert.equal(limiter.when("a"), 50);
  });

  it("gives 5 ms per key until 100 keys exhaust the bucket, then 100 ms spacing", () => {
    const limiter = defaultControllerRateLimiter<string>(new VirtualClock());
    const delays = Array.from({ length: 102 }, (_, index) => limiter.when(`key-${index}`));
    assert.ok(delays.slice(0, 100).every((delayMs) => delayMs === 5));
    assert.deepEqual(delays.slice(100), [100, 200]);
  });
});
