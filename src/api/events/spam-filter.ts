/**
 * client-go's `EventSourceObjectSpamFilter`: each (source, involved object) pair has a token bucket,
 * so one component can write a burst of events about an object and then only a trickle — the long
 * tail of a pod that fails to mount forever does not flood the API.
 */
import { msPerSecond } from "../../runtime/duration.ts";
import { SlotLru } from "./slot-lru.ts";

interface SpamFilterOptions {
  /** Events allowed at once per source and object. */
  burst: number;
  /** Tokens refilled per second. */
  refillPerSecond: number;
  /** Token buckets remembered; the least recently used pair is forgotten (and starts full again). */
  maxEntries: number;
}

/** A bucket's fields in its cache row. */
const tokensField = 0;
const updatedAtMsField = 1;

export class SpamFilter {
  private readonly options: SpamFilterOptions;
  /** Token buckets in typed-array rows (slot-lru.ts): a kubelet keeps one per object it reported on. */
  private readonly buckets: SlotLru<never>;

  constructor(options: SpamFilterOptions) {
    if (!(options.burst >= 1) || !(options.refillPerSecond > 0)) {
      throw new RangeError(
        `SpamFilter: burst must be >= 1 and refillPerSecond > 0, got ${options.burst} and ${options.refillPerSecond}`,
      );
    }
    this.options = options;
    this.buckets = new SlotLru(options.maxEntries, { numbers: 2, values: 0 });
  }

  /** Takes a token for `key` (a `correlationKey`) at `nowMs`; false means the event must be dropped. */
  tryAccept(key: number, nowMs: number): boolean {
    const { slot, isNew } = this.buckets.upsert(key);
    // A bucket not (or no longer) remembered starts full.
    const tokensBefore = isNew ? this.options.burst : this.buckets.number(slot, tokensField);
    const updatedAtMs = isNew ? nowMs : this.buckets.number(slot, updatedAtMsField);
    const refilled = ((nowMs - updatedAtMs) / msPerSecond) * this.options.refillPerSecond;
    let tokens = Math.min(this.options.burst, tokensBefore + Math.max(0, refilled));
    const accepted = tokens >= 1;
    if (accepted) tokens -= 1;
    this.buckets.setNumber(slot, tokensField, tokens);
    this.buckets.setNumber(slot, updatedAtMsField, nowMs);
    return accepted;
  }
}
