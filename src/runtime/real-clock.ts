/**
 * Wall-clock time for `kvol up`, `kvol server` and `kvol node`: Date.now and the global timers.
 * Node's setTimeout fires after 1 ms when asked for more than 2^31-1 ms, so longer delays are
 * split into chained timers here instead of silently firing at once.
 */
import type { Clock, QuietTimerCallback, Timer } from "./clock.ts";
import { type PassErrorHandler, reportPassErrorToStderr, startEveryLoop } from "./every.ts";

/** The longest delay Node's setTimeout honours (about 24.8 days). */
export const maxNodeTimerDelayMs = 2 ** 31 - 1;

export interface RealClockOptions {
  /** Receives errors thrown by `every` passes; defaults to a line on stderr. */
  onPassError?: PassErrorHandler;
}

function validateDelayMs(method: string, delayMs: number): void {
  if (!Number.isFinite(delayMs) || delayMs < 0) {
    throw new RangeError(`${method}: delayMs must be a finite number >= 0, got ${delayMs}`);
  }
}

export class RealClock implements Clock {
  private readonly onPassError: PassErrorHandler;

  constructor(options: RealClockOptions = {}) {
    this.onPassError = options.onPassError ?? reportPassErrorToStderr;
  }

  now(): number {
    return Date.now();
  }

  sleep(delayMs: number): Promise<void> {
    validateDelayMs("sleep", delayMs);
    return new Promise((resolve) => this.setTimer(delayMs, resolve));
  }

  setTimer(delayMs: number, fn: () => void): Timer {
    validateDelayMs("setTimer", delayMs);
    const dueMs = Date.now() + delayMs;
    let handle: NodeJS.Timeout | undefined;
    const arm = (remainingMs: number): void => {
      handle = setTimeout(
        () => {
          const stillToWaitMs = dueMs - Date.now();
          if (remainingMs > maxNodeTimerDelayMs && stillToWaitMs > 0) arm(stillToWaitMs);
          else fn();
        },
        Math.min(remainingMs, maxNodeTimerDelayMs),
      );
    };
    arm(delayMs);
    return {
      cancel: () => {
        if (handle !== undefined) clearTimeout(handle);
        handle = undefined;
      },
    };
  }

  /** Under real time there is no turn to save: a plain timer, its callback's answer unused. */
  setQuietTimer(delayMs: number, fn: QuietTimerCallback): Timer {
    return this.setTimer(delayMs, fn);
  }

  every(periodMs: number, fn: () => void | Promise<void>): Timer {
    return startEveryLoop((delayMs, pass) => this.setTimer(delayMs, pass), periodMs, fn, this.onPassError);
  }
}
