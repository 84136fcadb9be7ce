/**
 * Waiting on real time in the tests of the long-running commands: polls a condition until it holds
 * or the time is up, then fails naming what it waited for.
 */
import { RealClock } from "../../runtime/real-clock.ts";

/** How often a condition is checked. */
export const waitPollIntervalMs = 100;

const wallClock = new RealClock();

export async function waitFor<T>(
  description: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
): Promise<T> {
  const deadlineMs = wallClock.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (wallClock.now() >= deadlineMs) {
      const why =
        lastError === undefined
          ? ""
          : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`${description} did not happen within ${timeoutMs} ms${why}`);
    }
    await wallClock.sleep(waitPollIntervalMs);
  }
}

export function sleepMs(durationMs: number): Promise<void> {
  return wallClock.sleep(durationMs);
}
