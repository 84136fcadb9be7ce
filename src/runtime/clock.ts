/**
 * The Clock seam. Every component reads time and schedules work through a Clock, never through
 * Date or the global timer functions, so the same code runs on real time (`RealClock`) and on
 * virtual time (`VirtualClock`), where the same seed and inputs give the same timeline.
 */

/** A scheduled piece of work that can be cancelled before it runs (cancelling twice is harmless). */
export interface Timer {
  cancel(): void;
}

/**
 * A quiet timer's callback. It returns `false` only when, by the time it returns, everything it did
 * is done: it settled no promise (nor awaited or chained one), queued no microtask, `process.nextTick`,
 * `setImmediate` or `afterIo` callback, and started no I/O — nothing that would run after it returns.
 * It may read and change state synchronously, and schedule or cancel Clock timers (their order is
 * their sequence, set by the call, so they land where they would anyway). Otherwise it returns `true`
 * (when unsure, `true`: the only cost is the turn). A callback that throws is a failed task, as
 * with setTimer.
 *
 * Why the turn can be skipped: after a task a VirtualClock awaits an event-loop turn so that the
 * promise chains the task started run before the next task. After a callback that started none,
 * that turn would drain nothing, so running the next task at once gives the same order of
 * everything the simulation does (the clock still takes the turn when deferred work or real I/O
 * may be waiting for it).
 */
export type QuietTimerCallback = () => boolean;

export interface Clock {
  /** Milliseconds since the Unix epoch. Under a VirtualClock this starts at a fixed instant. */
  now(): number;
  /** Resolves after `delayMs` (0 resolves on the next turn of this clock). */
  sleep(delayMs: number): Promise<void>;
  /** Runs `fn` once after `delayMs`. */
  setTimer(delayMs: number, fn: () => void): Timer;
  /**
   * setTimer for a callback that usually finds nothing to do (a poll's check): `fn` returns whether
   * it started asynchronous work (`QuietTimerCallback` says precisely what counts). A VirtualClock
   * runs its next task straight after a callback that started none, without the event-loop turn it
   * takes after any other task; under real time this is plain setTimer.
   */
  setQuietTimer(delayMs: number, fn: QuietTimerCallback): Timer;
  /**
   * Kubernetes' `wait.Until`: runs `fn` now, and `periodMs` after each pass ends (a pass that returns a
   * promise ends when it settles). A pass that throws is logged by the caller's fn, never stops the loop.
   */
  every(periodMs: number, fn: () => void | Promise<void>): Timer;
}

let lastFormattedSecond = { second: Number.NaN, text: "" };

/** RFC 3339 with second precision, as Kubernetes writes metav1.Time (`2026-11-21T16:05:00Z`). */
export function formatRfc3339(epochMs: number): string {
  const second = Math.floor(epochMs / 1000);
  // Writes come in bursts within one second: the same (flat, shared) string serves them all.
  if (second !== lastFormattedSecond.second) {
    const iso = new Date(second * 1000).toISOString();
    lastFormattedSecond = { second, text: [iso.slice(0, 19), "Z"].join("") };
  }
  return lastFormattedSecond.text;
}

/** `2026-01-01T00:00:00.000Z`. */
const isoLengthWithFourDigitYear = 24;
let lastMicroSecond: { second: number; prefix: string | undefined } = { second: Number.NaN, prefix: undefined };
/** For each millisecond of a second, its digits, the three zero digits of microseconds, and `Z`. */
const millisecondsAndMicrosText = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, "0")}000Z`);

/** RFC 3339 with microseconds, as Kubernetes writes metav1.MicroTime (Lease renewTime, event time). */
export function formatRfc3339Micro(epochMs: number): string {
  // A Date drops the fraction of a millisecond toward zero; so does this.
  const wholeMs = Math.trunc(epochMs);
  const second = Math.floor(wholeMs / 1000);
  // Container log lines come in bursts within one second: the date and time are formatted once for them.
  if (second !== lastMicroSecond.second) {
    const iso = new Date(second * 1000).toISOString();
    // Only four-digit years have the fixed layout the cached prefix relies on.
    const prefix = iso.length === isoLengthWithFourDigitYear ? iso.slice(0, 20) : undefined;
    lastMicroSecond = { second, prefix };
  }
  const { prefix } = lastMicroSecond;
  if (prefix === undefined) return `${new Date(epochMs).toISOString().slice(0, 23)}000Z`;
  return prefix + (millisecondsAndMicrosText[wholeMs - second * 1000] as string);
}

/** Parses an RFC 3339 timestamp into epoch milliseconds; NaN when it is not one. */
export function parseRfc3339(text: string): number {
  return Date.parse(text);
}
