/**
 * Kubernetes' `wait.PollUntilContextTimeout(ctx, interval, timeout, immediate=true, condition)`:
 * checks the condition now and every `intervalMs`, gives up with `timed out waiting for the
 * condition` once `timeoutMs` has passed. A condition that throws ends the wait with that error.
 * When `cancelled` fires (the pod's sync is abandoned: its context is cancelled) the wait stops at
 * once with SyncCancelledError (`context canceled`): no further check runs, no timer is left.
 *
 * A pod waiting for its volumes is checked about thirty times before they are mounted, and nearly
 * every check finds nothing yet; so each later check runs inside a quiet timer (clock.ts) that
 * settles nothing until the wait ends, and a VirtualClock spends no event-loop turn on it. The
 * condition must therefore be a synchronous look at state that starts nothing asynchronous.
 */
import type { Clock, Timer } from "../../runtime/clock.ts";
import { WaitTimeoutError } from "../../runtime/wait-backoff.ts";
import { type SyncCancellation, SyncCancelledError } from "../pod/sync-cancellation.ts";

export async function pollImmediateUntil(
  clock: Clock,
  intervalMs: number,
  timeoutMs: number,
  condition: () => boolean,
  cancelled?: SyncCancellation,
): Promise<void> {
  if (!(intervalMs > 0)) throw new RangeError(`pollImmediateUntil: intervalMs must be > 0, got ${intervalMs}`);
  const deadlineMs = clock.now() + timeoutMs;
  // As Kubernetes' immediate poll: the first check runs even when the context is already done.
  if (condition()) return;
  if (cancelled?.cancelled) throw new SyncCancelledError();
  if (deadlineMs - clock.now() <= 0) throw new WaitTimeoutError();
  await new Promise<void>((resolve, reject) => {
    const poll = new Poll(clock, intervalMs, deadlineMs, condition, resolve, reject, cancelled);
    poll.scheduleNext();
  });
}

/**
 * One wait's later checks. A check that finds the condition false schedules the one after and
 * reports no asynchronous work; a check that ends the wait (condition true, deadline reached,
 * condition thrown) settles the wait's promise and says so. Bounded: each check is at least one
 * interval later, and none is scheduled past the deadline.
 */
class Poll {
  private timer: Timer | undefined;
  private readonly onCancel: (() => void) | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
    private readonly deadlineMs: number,
    private readonly condition: () => boolean,
    private readonly resolve: () => void,
    private readonly reject: (error: unknown) => void,
    private readonly cancelled: SyncCancellation | undefined,
  ) {
    if (cancelled === undefined) return;
    this.onCancel = () => {
      this.timer?.cancel();
      this.timer = undefined;
      reject(new SyncCancelledError());
    };
    cancelled.onCancel(this.onCancel);
  }

  /** Schedules the next check, at `intervalMs` or at the deadline if sooner. */
  scheduleNext(): void {
    this.timer = this.clock.setQuietTimer(Math.min(this.intervalMs, this.deadlineMs - this.clock.now()), () =>
      this.check(),
    );
  }

  private check(): boolean {
    this.timer = undefined;
    // At the deadline the wait ends without asking the condition again.
    if (this.clock.now() >= this.deadlineMs) return this.fail(new WaitTimeoutError());
    let met: boolean;
    try {
      met = this.condition();
    } catch (error) {
      return this.fail(error);
    }
    if (met) {
      this.stopListening();
      this.resolve();
      return true;
    }
    // A check can outlast the deadline on a real clock (a long pause): the wait has timed out then.
    if (this.deadlineMs - this.clock.now() <= 0) return this.fail(new WaitTimeoutError());
    this.scheduleNext();
    return false;
  }

  /** Ends the wait with `error`; settling its promise is asynchronous work, so: true. */
  private fail(error: unknown): true {
    this.stopListening();
    this.reject(error);
    return true;
  }

  private stopListening(): void {
    if (this.onCancel !== undefined) this.cancelled?.offCancel(this.onCancel);
  }
}
