/**
 * client-go's work queue rate limiters: how long a failed key waits before it is handed out again.
 * The default controller limiter is the slower of a per-key exponential backoff (5 ms doubling to
 * 1000 s) and an overall token bucket (10 per second, bursts of 100), as in
 * `workqueue.DefaultControllerRateLimiter()`.
 */
import type { Clock } from "./clock.ts";
import { msPerSecond } from "./duration.ts";

export interface RateLimiter<K> {
  /** Records one more retry of `key` and returns how long (ms) it should wait before being handed out. */
  when(key: K): number;
  /** Stops tracking `key` (after success), so its next failure starts from the base delay again. */
  forget(key: K): void;
  /** How many times `key` has been retried since it was last forgotten. */
  numRequeues(key: K): number;
}

const defaultItemBaseDelayMs = 5;
const defaultItemMaxDelayMs = 1_000_000;
const defaultBucketQps = 10;
const defaultBucketBurst = 100;

/** Per-key exponential backoff: base × 2^(failures so far), capped at max. */
export class ItemExponentialFailureRateLimiter<K> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();

  constructor(
    private readonly baseDelayMs: number,
    private readonly maxDelayMs: number,
  ) {
    if (!(baseDelayMs > 0) || !(maxDelayMs >= baseDelayMs)) {
      throw new RangeError(
        `ItemExponentialFailureRateLimiter: need 0 < baseDelayMs <= maxDelayMs, got ${baseDelayMs} and ${maxDelayMs}`,
      );
    }
  }

  when(key: K): number {
    const previousFailures = this.failures.get(key) ?? 0;
    this.failures.set(key, previousFailures + 1);
    // 2 ** n reaches Infinity for large n, which the min turns into the cap.
    return Math.min(this.baseDelayMs * 2 ** previousFailures, this.maxDelayMs);
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * A token bucket shared by all keys (golang.org/x/time/rate semantics): it starts full with `burst`
 * tokens, refills at `qps` per second, and a request when it is empty is told to wait until its token
 * will have accrued (reservations queue up into the future).
 */
export class BucketRateLimiter<K> implements RateLimiter<K> {
  private tokens: number;
  private lastRefillMs: number | undefined;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {
    if (!(qps > 0) || !Number.isSafeInteger(burst) || burst < 1) {
      throw new RangeError(`BucketRateLimiter: need qps > 0 and an integer burst >= 1, got qps=${qps} burst=${burst}`);
    }
    this.tokens = burst;
  }

  when(_key: K): number {
    const nowMs = this.clock.now();
    this.refill(nowMs);
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * msPerSecond;
  }

  forget(_key: K): void {
    // The bucket is shared by all keys: there is nothing per key to forget.
  }

  numRequeues(_key: K): number {
    return 0;
  }

  private refill(nowMs: number): void {
    const elapsedMs = this.lastRefillMs === undefined ? 0 : Math.max(0, nowMs - this.lastRefillMs);
    this.tokens = Math.min(this.burst, this.tokens + (elapsedMs / msPerSecond) * this.qps);
    this.lastRefillMs = nowMs;
  }
}

/** Waits as long as the slowest of its limiters; every limiter records every retry. */
export class MaxOfRateLimiter<K> implements RateLimiter<K> {
  private readonly limiters: readonly RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    if (limiters.length === 0) throw new RangeError("MaxOfRateLimiter: needs at least one limiter");
    this.limiters = limiters;
  }

  when(key: K): number {
    return Math.max(...this.limiters.map((limiter) => limiter.when(key)));
  }

  forget(key: K): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  numRequeues(key: K): number {
    return Math.max(...this.limiters.map((limiter) => limiter.numRequeues(key)));
  }
}

/** client-go's DefaultControllerRateLimiter: max(per-key 5 ms → 1000 s, bucket 10 qps / burst 100). */
export function defaultControllerRateLimiter<K>(clock: Clock): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ItemExponentialFailureRateLimiter<K>(defaultItemBaseDelayMs, defaultItemMaxDelayMs),
    new BucketRateLimiter<K>(defaultBucketQps, defaultBucketBurst, clock),
  );
}
