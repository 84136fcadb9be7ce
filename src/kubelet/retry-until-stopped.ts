/**
 * The node agent's "keep trying until it works" loops (node registration, CSINode creation, Lease
 * renewal): after each failure wait, starting at `initialMs` and doubling up to `maxMs`, then try
 * again, for as long as the agent runs.
 */
import type { Clock } from "../runtime/clock.ts";

interface RetryUntilStoppedOptions {
  clock: Clock;
  initialMs: number;
  maxMs: number;
  /** False once the agent stops: no further attempt is made. */
  keepTrying: () => boolean;
  /** Told of each failure and of the wait before the next attempt. */
  onFailure: (error: unknown, retryInMs: number) => void;
}

/** Resolves with the first successful attempt's result, or undefined when the agent stopped first. */
export async function retryUntilStopped<T>(
  options: RetryUntilStoppedOptions,
  attempt: () => Promise<T>,
): Promise<T | undefined> {
  const { clock, maxMs, keepTrying, onFailure } = options;
  let delayMs = options.initialMs;
  // Bounded by the agent's lifetime: `keepTrying` turns false when it stops.
  while (keepTrying()) {
    try {
      return await attempt();
    } catch (error) {
      onFailure(error, delayMs);
      await clock.sleep(delayMs);
      delayMs = Math.min(delayMs * 2, maxMs);
    }
  }
  return undefined;
}
