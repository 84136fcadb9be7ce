/**
 * client-go's `EventSourceObjectSpamFilter`: each (source, involved object) pair has a token bucket,
 * so one component can write a burst of events about an object and then only a trickle — the long
 * tail of a pod that fails to mount forever does not flood the API.
 */
import { msPerSecond } from "../../runtime/duration.ts";
import { LruCache } from "./lru-cache.ts";

interface SpamFilterOptions {
  /** Events allowed at once per source and object. */
  burst: number;
  /** Tokens refilled per second. */
  refillPerSecond: number;
  /** Token buckets remembered; the least recently used pair is forgotten (and starts full again). */
  maxEntries: number;
}

interface TokenBucket {
  tokens: number;
  updatedAtMs: number;
}

export class SpamFilter {
  private readonly options: SpamFilterOptions;
  private readonly buckets: LruCache<TokenBucket, number>;

  constructor(options: SpamFilterOptions) {
    if (!(options.burst >= 1) || !(options.refillPerSecond > 0)) {
      throw new RangeError(
        `SpamFilter: burst must be >= 1 and refillPerSecond > 0, got ${options.burst} and ${options.refillPerSecond}`,
      );
    }
    this.options = options;
    this.buckets = new LruCache(options.maxEntries);
  }

  /** Takes a token for `key` (a `correlationKey`) at `nowMs`; false means the event must be dropped. */
  tryAccept(key: number, nowMs: number): boolean {
    const bucket = this.buckets.get(key) ?? { tokens: this.options.burst, updatedAtMs: nowMs };
    const refilled = ((nowMs - bucket.updatedAtMs) / msPerSecond) * this.options.refillPerSecond;
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + Math.max(0, refilled));
    bucket.updatedAtMs = nowMs;
    const accepted = bucket.tokens >= 1;
    if (accepted) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    return accepted;
  }
}
