/**
 * Kubernetes' `wait.Until` on top of any timer source: run a pass, and schedule the next one
 * `periodMs` after the pass ends (after its promise settles), so a slow pass delays the next one
 * instead of overlapping it. Both clocks share this so real and virtual time loop identically.
 */
import type { Timer } from "./clock.ts";

/** Receives what a loop pass threw or rejected with; the loop goes on regardless. */
export type PassErrorHandler = (error: unknown) => void;

/** Writes a failed pass to stderr, so an unhandled pass error is never silent. */
export const reportPassErrorToStderr: PassErrorHandler = (error) => {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`periodic loop pass failed (the loop continues): ${text}\n`);
};

/** Delay before the first pass: it runs on the clock's next turn, at the current time. */
const firstPassDelayMs = 0;

function validatePeriodMs(periodMs: number): void {
  if (!Number.isFinite(periodMs) || periodMs < 0) {
    throw new RangeError(`every: periodMs must be a finite number >= 0, got ${periodMs}`);
  }
}

/**
 * Starts a `wait.Until` loop. `setTimer` schedules one callback; `onError` receives pass failures.
 * The first pass runs after `firstPassDelayMs` rather than inside this call, so a component that starts
 * a loop from its constructor is fully built before the loop first touches it.
 */
export function startEveryLoop(
  setTimer: (delayMs: number, fn: () => void) => Timer,
  periodMs: number,
  fn: () => void | Promise<void>,
  onError: PassErrorHandler,
): Timer {
  validatePeriodMs(periodMs);
  let stopped = false;
  let pending: Timer | undefined;

  const scheduleNext = (delayMs: number): void => {
    if (!stopped) pending = setTimer(delayMs, runPass);
  };
  const passEnded = (): void => scheduleNext(periodMs);
  const passFailed = (error: unknown): void => {
    // Schedule the next pass even if the handler itself throws: the loop must outlive its reporter.
    try {
      onError(error);
    } finally {
      passEnded();
    }
  };

  function runPass(): void {
    pending = undefined;
    let result: void | Promise<void>;
    try {
      result = fn();
    } catch (error) {
      passFailed(error);
      return;
    }
    if (result instanceof Promise) result.then(passEnded, passFailed);
    else passEnded();
  }

  scheduleNext(firstPassDelayMs);
  return {
    cancel(): void {
      stopped = true;
      pending?.cancel();
      pending = undefined;
    },
  };
}
