/**
 * Kubernetes' `wait.PollUntilContextTimeout(ctx, interval, timeout, immediate=true, condition)`:
 * checks the condition now and every `intervalMs`, gives up with `timed out waiting for the
 * condition` once `timeoutMs` has passed. A condition that throws ends the wait with that error.
 *
 * A pod waiting for its volumes is checked about thirty times before they are mounted, and nearly
 * every check finds nothing yet; so each later check runs inside a quiet timer (clock.ts) that
 * settles nothing until the wait ends, and a VirtualClock spends no event-loop turn on it. The
 * condition must therefore be a synchronous look at state that starts nothing asynchronous.
 */
import type { Clock } from "../../runtime/clock.ts";
import { WaitTimeoutError } from "../../runtime/wait-backoff.ts";

export async function pollImmediateUntil(
  clock: Clock,
  intervalMs: number,
  timeoutMs: number,
  condition: () => boolean,
): Promise<void> {
  if (!(intervalMs > 0)) throw new RangeError(`pollImmediateUntil: intervalMs must be > 0, got ${intervalMs}`);
  const deadlineMs = clock.now() + timeoutMs;
  if (condition()) return;
  if (deadlineMs - clock.now() <= 0) throw new WaitTimeoutError();
  await new Promise<void>((resolve, reject) => pollLater(clock, intervalMs, deadlineMs, condition, resolve, reject));
}

/**
 * Schedules the next check, at `intervalMs` or at the deadline if sooner. A check that finds the
 * condition false schedules the one after and reports no asynchronous work; a check that ends the
 * wait (condition true, deadline reached, condition thrown) settles the wait's promise and says so.
 * Bounded: each check is at least one interval later, and none is scheduled past the deadline.
 */
function pollLater(
  clock: Clock,
  intervalMs: number,
  deadlineMs: number,
  condition: () => boolean,
  resolve: () => void,
  reject: (error: unknown) => void,
): void {
  clock.setQuietTimer(Math.min(intervalMs, deadlineMs - clock.now()), () => {
    // At the deadline the wait ends without asking the condition again.
    if (clock.now() >= deadlineMs) {
      reject(new WaitTimeoutError());
      return true;
    }
    let met: boolean;
    try {
      met = condition();
    } catch (error) {
      reject(error);
      return true;
    }
    if (met) {
      resolve();
      return true;
    }
    // A check can outlast the deadline on a real clock (a long pause): the wait has timed out then.
    if (deadlineMs - clock.now() <= 0) {
      reject(new WaitTimeoutError());
      return true;
    }
    pollLater(clock, intervalMs, deadlineMs, condition, resolve, reject);
    return false;
  });
}
