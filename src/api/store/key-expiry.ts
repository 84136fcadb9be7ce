/**
 * Keys written with a TTL, for the backends that keep time themselves (memory and SQLite): what
 * etcd's leases do for the etcd backend, driven by the Clock so a simulation expires its Events at
 * the same virtual instant run after run. A write with a TTL arms its key at the write's revision.
 * When the time comes, the backend removes the key if it is still at that revision, and its
 * watchers see an ordinary delete, as they do when etcd revokes a lease.
 *
 * Nothing here records which keys are armed: every write gives its key a new revision, so the
 * backend's own revision check tells whether an entry still stands. A later write with a TTL
 * supersedes it, and a write without one or a delete ends it, as etcd attaches a key to the lease
 * of its last put; the superseded entry stays queued, is skipped when it comes due, and is swept
 * out once such entries could be the majority. A per-key record would cost a map entry for every
 * Event and a lookup on every other write.
 *
 * The keys wait in one queue ordered by expiry, behind a single Clock timer set for the earliest:
 * a timer per key cost more than the Event it would remove. Keys due at the same instant expire
 * together, in the order they were written.
 *
 * Since a delete or a write without a TTL is not reported here, the timer stays set while the queue
 * holds any entry, live or superseded: a store whose Events were all deleted still has a timer
 * until the last of them would have expired (an Event's TTL is 1 h), and a virtual clock run until
 * idle moves its time that far ahead. The timer then finds nothing to remove and is not set again.
 */
import type { Clock, Timer } from "../../runtime/clock.ts";
import { msPerSecond } from "../../runtime/duration.ts";
import { expiryRetryIntervalMs } from "./constants.ts";
import { ExpiryQueue } from "./expiry-queue.ts";

/**
 * Removes `key` if it is still at `modRevision`; throws, or returns a promise that rejects, when the
 * removal could not be written (a backend whose writes wait for a group commit answers later).
 */
export type ExpireKey = (key: string, modRevision: number) => void | Promise<void>;

/** Whether `key` is still at `modRevision` (written neither since nor deleted): the backend's revision check. */
export type KeyIsAt = (key: string, modRevision: number) => boolean;

/** Superseded entries are swept out only past this many, so small stores never pay for a sweep. */
const minEntriesBeforeSweep = 1024;

/** How the backend answers for its keys. */
export interface ExpiringKeys {
  expire: ExpireKey;
  isAt: KeyIsAt;
}

export class KeyExpiry {
  private readonly clock: Clock | undefined;
  private readonly backendKind: string;
  private readonly keys: ExpiringKeys;
  private readonly queue = new ExpiryQueue();
  /** Entries left by the last sweep (all current then), or fewer once some came due: the next sweeps once the queue doubles that. */
  private entriesAfterSweep = 0;
  private timer: Timer | undefined;
  private timerDueMs = Number.POSITIVE_INFINITY;
  private stopped = false;

  /** Without a clock, a write with a TTL is refused (nothing could ever expire it). */
  constructor(clock: Clock | undefined, backendKind: string, keys: ExpiringKeys) {
    this.clock = clock;
    this.backendKind = backendKind;
    this.keys = keys;
  }

  /** When a write with `ttlSeconds` made now would expire (epoch ms); throws for a bad TTL or no clock. */
  expiresAtMs(ttlSeconds: number): number {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) {
      throw new RangeError(`a TTL must be a whole number of seconds from 1 on, got ${ttlSeconds}`);
    }
    if (this.clock === undefined) {
      throw new Error(`the ${this.backendKind} store backend was opened without a clock, so it cannot expire keys`);
    }
    return this.clock.now() + ttlSeconds * msPerSecond;
  }

  /**
   * Arms `key`, just written at `modRevision`, to expire at `expiresAtMs`. An earlier expiry of the
   * key lapses by itself: the key is no longer at that revision.
   */
  arm(key: string, modRevision: number, expiresAtMs: number): void {
    const clock = this.clock;
    if (clock === undefined) throw new Error(`the ${this.backendKind} store backend has no clock to expire ${key}`);
    this.queue.push(key, modRevision, expiresAtMs);
    this.sweepIfMostlyStale();
    this.schedule(clock);
  }

  /** Entries in the queue, superseded ones included: past a thousand, at most twice the current ones at the last sweep. */
  get queuedEntries(): number {
    return this.queue.length;
  }

  stop(): void {
    this.stopped = true;
    this.cancelTimer();
    this.queue.clear();
    this.entriesAfterSweep = 0;
  }

  /** Sets the timer for the earliest entry, unless one is set for that instant or earlier already. */
  private schedule(clock: Clock): void {
    const earliestMs = this.queue.earliestMs;
    if (earliestMs === undefined) {
      this.cancelTimer();
      return;
    }
    if (this.timer !== undefined && this.timerDueMs <= earliestMs) return;
    this.cancelTimer();
    this.timerDueMs = earliestMs;
    this.timer = clock.setTimer(Math.max(0, earliestMs - clock.now()), () => this.fire(clock));
  }

  private cancelTimer(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerDueMs = Number.POSITIVE_INFINITY;
  }

  /** Expires every key due by now, then waits for the next. */
  private fire(clock: Clock): void {
    this.timer = undefined;
    this.timerDueMs = Number.POSITIVE_INFINITY;
    const nowMs = clock.now();
    for (let due = this.queue.popDue(nowMs); due !== undefined; due = this.queue.popDue(nowMs)) {
      this.expireOne(clock, due.key, due.modRevision);
    }
    // Entries that came due left the queue: the next sweep is measured from what is left, or a past
    // peak would let stale entries grow to twice that peak before one.
    this.entriesAfterSweep = Math.min(this.entriesAfterSweep, this.queue.length);
    this.schedule(clock);
  }

  /** Asks the backend to remove `key`, which it does only if the key is still at the revision that armed it. */
  private expireOne(clock: Clock, key: string, modRevision: number): void {
    // The removal could not be written (a full disk): try again, as etcd's lessor retries a revoke,
    // rather than keep the key forever; not once stopped (the backend is closed).
    const retry = (): void => {
      if (!this.stopped) this.arm(key, modRevision, clock.now() + expiryRetryIntervalMs);
    };
    try {
      const removal = this.keys.expire(key, modRevision);
      if (removal !== undefined) removal.catch(retry);
    } catch {
      retry();
    }
  }

  /**
   * Superseded entries would otherwise stay until their own expiry. A sweep asks the backend about
   * every entry, so it runs only once the queue has doubled since the last one: its cost is spread
   * over the writes that grew the queue, and the queue stays within twice the current entries.
   */
  private sweepIfMostlyStale(): void {
    if (this.queue.length <= minEntriesBeforeSweep || this.queue.length <= 2 * this.entriesAfterSweep) return;
    this.queue.retain(this.keys.isAt);
    this.entriesAfterSweep = this.queue.length;
  }
}
