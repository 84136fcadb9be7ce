/**
 * Keys written with a TTL, for the backends that keep time themselves (memory and SQLite): what
 * etcd's leases do for the etcd backend, driven by the Clock so a simulation expires its Events at
 * the same virtual instant run after run. Each key has one timer, re-armed by every write with a
 * TTL and cancelled by a write without one or by a delete, as etcd attaches a key to the lease of
 * its last put. When a timer fires, the backend removes the key if it is still at the revision
 * that armed it, and its watchers see an ordinary delete, as they do when etcd revokes a lease.
 */
import type { Clock, Timer } from "../../runtime/clock.ts";
import { msPerSecond } from "../../runtime/duration.ts";
import { expiryRetryIntervalMs } from "./constants.ts";

/** Removes `key` if it is still at `modRevision`; throws when the removal could not be written. */
export type ExpireKey = (key: string, modRevision: number) => void;

export class KeyExpiry {
  private readonly clock: Clock | undefined;
  private readonly backendKind: string;
  private readonly expire: ExpireKey;
  private readonly timers = new Map<string, Timer>();

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
    this.timers.get(key)?.cancel();
    const delayMs = Math.max(0, expiresAtMs - clock.now());
    this.timers.set(
      key,
      clock.setTimer(delayMs, () => this.fire(key, modRevision)),
    );
  }

  /** The key was written without a TTL or deleted: it no longer expires. */
  clear(key: string): void {
    const timer = this.timers.get(key);
    if (timer === undefined) return;
    timer.cancel();
    this.timers.delete(key);
  }

  /** Number of keys waiting to expire. */
  get size(): number {
    return this.timers.size;
  }

  stop(): void {
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
  }

  private fire(key: string, modRevision: number): void {
    this.timers.delete(key);
    try {
      this.expire(key, modRevision);
    } catch {
      // The removal could not be written (a full disk): try again, as etcd's lessor retries a
      // revoke, rather than keep the key forever.
      const clock = this.clock as Clock;
      this.arm(key, modRevision, clock.now() + expiryRetryIntervalMs);
    }
  }
}
