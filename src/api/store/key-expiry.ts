/**
 * Keys written with a TTL, for the backends that keep time themselves (memory and SQLite): what
 * etcd's leases do for the etcd backend, driven by the Clock so a simulation expires its Events at
 * the same virtual instant run after run. A write with a TTL arms its key, replacing the expiry of
 * any earlier write; a write without one or a delete clears it, as etcd attaches a key to the lease
 * of its last put. When the time comes, the backend removes the key if it is still at the revision
 * that armed it, and its watchers see an ordinary delete, as they do when etcd revokes a lease.
 *
 * The keys wait in one queue ordered by expiry, behind a single Clock timer set for the earliest:
 * a timer per key cost more than the Event it would remove. Keys due at the same instant expire
 * together, in the order they were written. A write that supersedes an armed one leaves the old
 * entry in the queue, skipped when it comes due and swept out when such entries are the majority.
 */
import type { Clock, Timer } from "../../runtime/clock.ts";
import { msPerSecond } from "../../runtime/duration.ts";
import { expiryRetryIntervalMs } from "./constants.ts";
import { ExpiryQueue } from "./expiry-queue.ts";

/** Removes `key` if it is still at `modRevision`; throws when the removal could not be written. */
export type ExpireKey = (key: string, modRevision: number) => void;

/** Superseded entries are swept out only past this many, so small stores never pay for a sweep. */
const minEntriesBeforeSweep = 1024;

export class KeyExpiry {
  private readonly clock: Clock | undefined;
  private readonly backendKind: string;
  private readonly expire: ExpireKey;
  /** The revision whose expiry is armed, by key: queue entries of any other revision are stale. */
  private readonly armed = new Map<string, number>();
  private readonly queue = new ExpiryQueue();
  private timer: Timer | undefined;
  private timerDueMs = Number.POSITIVE_INFINITY;

  /** Without a clock, a write with a TTL is refused (nothing could ever expire it). */
  constructor(clock: Clock | undefined, backendKind: string, expire: ExpireKey) {
    this.clock = clock;
    this.backendKind = backendKind;
    this.expire = expire;
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

  /** Arms `key` (at `modRevision`) to expire at `expiresAtMs`, replacing any earlier expiry. */
  arm(key: string, modRevision: number, expiresAtMs: number): void {
    const clock = this.clock;
    if (clock === undefined) throw new Error(`the ${this.backendKind} store backend has no clock to expire ${key}`);
    this.armed.set(key, modRevision);
    this.queue.push(key, modRevision, expiresAtMs);
    this.sweepIfMostlyStale();
    this.schedule(clock);
  }

  /** The key was written without a TTL or deleted: it no longer expires. */
  clear(key: string): void {
    if (!this.armed.delete(key)) return;
    if (this.armed.size === 0) {
      this.stop();
      return;
    }
    this.sweepIfMostlyStale();
  }

  /** Number of keys waiting to expire. */
  get size(): number {
    return this.armed.size;
  }

  /** Entries in the queue, superseded ones included: at most twice `size` past a thousand. */
  get queuedEntries(): number {
    return this.queue.length;
  }

  stop(): void {
    this.cancelTimer();
    this.armed.clear();
    this.queue.clear();
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
      const { key, modRevision } = due;
      if (this.armed.get(key) !== modRevision) continue;
      this.armed.delete(key);
      try {
        this.expire(key, modRevision);
      } catch {
        // The removal could not be written (a full disk): try again, as etcd's lessor retries a
        // revoke, rather than keep the key forever.
        this.arm(key, modRevision, nowMs + expiryRetryIntervalMs);
      }
    }
    this.schedule(clock);
  }

  /** Superseded entries would otherwise stay until their own expiry: a bound of twice the armed keys. */
  private sweepIfMostlyStale(): void {
    if (this.queue.length <= minEntriesBeforeSweep || this.queue.length <= 2 * this.armed.size) return;
    this.queue.retain((key, modRevision) => this.armed.get(key) === modRevision);
  }
}
