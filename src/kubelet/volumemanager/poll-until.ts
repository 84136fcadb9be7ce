/**
 * Kubernetes' `wait.PollUntilContextTimeout(ctx, interval, timeout, immediate=true, condition)`:
 * checks the condition now and every `intervalMs`, gives up with `timed out waiting for the
 * condition` once `timeoutMs` has passed. A condition that throws ends the wait with that error.
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
  // Bounded: each turn sleeps at least one interval (or up to the deadline, then stops).
  for (;;) {
    if (condition()) return;
    const remainingMs = deadlineMs - clock.now();
    if (remainingMs <= 0) throw new WaitTimeoutError();
    await clock.sleep(Math.min(intervalMs, remainingMs));
    if (clock.now() >= deadlineMs) throw new WaitTimeoutError();
  }
}
