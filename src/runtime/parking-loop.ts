/**
 * A `wait.Until` loop that parks while it has nothing to do (DESIGN.md, Cost model). Kubernetes'
 * reconciler runs every period whatever happens; a pass that finds nothing to do changes nothing,
 * so this loop skips such passes instead: after an idle pass it parks, and `wake()` (a change in
 * its inputs) schedules the next pass at the next tick of its period — the instant the
 * always-running loop would have run it — so timings stay identical and idle costs nothing.
 *
 * Ticks are counted from the end of the last pass (passes take no virtual time, so the always-
 * running loop ticks at lastPassEnd + k × period). A parked loop may ask to be woken at a time
 * (a periodic sync); it then runs at the first tick at or after that time.
 */
import type { Clock, Timer } from "./clock.ts";

/** What a pass found: more work (run again next period), or nothing (park, optionally until a time). */
export type PassVerdict = { busy: true } | { busy: false; wakeAtMs?: number };

export class ParkingLoop {
  private timer: Timer | undefined;
  private timerDueMs = Number.POSITIVE_INFINITY;
  private lastPassEndMs: number | undefined;
  private parked = false;
  private passInProgress = false;
  /** A wake arrived while a pass ran: its verdict may be stale, so it must not park. */
  private wokenDuringPass = false;
  private stopped = false;
  private running: Promise<void> | undefined;
  /** Passes run so far (for tests and the cost comment in the reconciler). */
  passes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly periodMs: number,
    private readonly pass: () => Promise<PassVerdict>,
    private readonly onPassError: (err: unknown) => void,
  ) {
    if (!(periodMs > 0)) throw new RangeError(`ParkingLoop: periodMs must be > 0, got ${periodMs}`);
  }

  start(): void {
    this.scheduleAt(this.clock.now());
  }

  /**
   * Something the passes read changed: if parked, run at the next tick. A change made at the very
   * instant of a tick comes after that tick's pass (the pass's timer was set one period earlier, so
   * it ran first), and is seen at the following tick.
   */
  wake(): void {
    if (this.passInProgress) this.wokenDuringPass = true;
    if (!this.parked || this.stopped) return;
    this.scheduleAt(this.nextTickAfter(this.clock.now()));
  }

  isParked(): boolean {
    return this.parked;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.running;
  }

  /** The first tick of the always-running loop at or after `timeMs` (never the instant of the last pass). */
  private nextTickAtOrAfter(timeMs: number): number {
    const base = this.lastPassEndMs;
    if (base === undefined) return timeMs;
    const periods = Math.max(1, Math.ceil((timeMs - base) / this.periodMs));
    return base + periods * this.periodMs;
  }

  /** The first tick of the always-running loop strictly after `timeMs`. */
  private nextTickAfter(timeMs: number): number {
    const base = this.lastPassEndMs;
    if (base === undefined) return timeMs;
    return base + (Math.floor((timeMs - base) / this.periodMs) + 1) * this.periodMs;
  }

  private scheduleAt(dueMs: number): void {
    if (this.stopped || dueMs >= this.timerDueMs) return;
    this.timer?.cancel();
    this.timerDueMs = dueMs;
    this.timer = this.clock.setTimer(Math.max(0, dueMs - this.clock.now()), () => this.runPass());
  }

  private runPass(): void {
    this.timer = undefined;
    this.timerDueMs = Number.POSITIVE_INFINITY;
    this.parked = false;
    this.passInProgress = true;
    this.wokenDuringPass = false;
    this.passes++;
    this.running = this.pass().then(
      (verdict) => this.passEnded(verdict),
      (err: unknown) => {
        this.onPassError(err);
        this.passEnded({ busy: true });
      },
    );
  }

  private passEnded(verdict: PassVerdict): void {
    this.lastPassEndMs = this.clock.now();
    this.passInProgress = false;
    if (this.stopped) return;
    if (verdict.busy || this.wokenDuringPass) {
      this.scheduleAt(this.lastPassEndMs + this.periodMs);
      return;
    }
    this.parked = true;
    if (verdict.wakeAtMs !== undefined) this.scheduleAt(this.nextTickAtOrAfter(verdict.wakeAtMs));
  }
}
