/**
 * Moves a VirtualClock along with the wall clock, so a Cluster built for simulation runs in real
 * time: every timer fires when its wall-clock moment comes (at most `pacerMaxWaitMs` late), and work
 * that API requests queue meanwhile runs within the same bound. Everything the cluster does still
 * goes through its one clock, as in the simulator.
 *
 * At a speed N (`kvol up --speed N`) the virtual clock moves N ms per wall-clock ms: every timer,
 * backoff, lease and timestamp of the cluster keeps its proportions, only sooner. A change of
 * speed takes effect from the moment it is made (time already passed is not rescaled).
 */

import type { Timer } from "../../runtime/clock.ts";
import type { RealClock } from "../../runtime/real-clock.ts";
import type { VirtualClock } from "../../runtime/virtual-clock.ts";
import { pacerMaxWaitMs } from "./constants.ts";

interface WallClockPacerOptions {
  virtual: VirtualClock;
  real: RealClock;
  /** A timer callback of the cluster threw; the pacer goes on with the next ones. */
  onTaskError: (error: unknown) => void;
  /** Virtual milliseconds per wall-clock millisecond (default 1). */
  speed?: number;
}

/** The slowest and fastest pace: a tenth of real time, and a thousand times (1 s shows 16 min 40 s). */
export const minSpeed = 0.1;
export const maxSpeed = 1000;

/** Throws a RangeError naming the allowed range unless `speed` is in it. */
function checkSpeed(speed: number): void {
  if (!Number.isFinite(speed) || speed < minSpeed || speed > maxSpeed) {
    throw new RangeError(`the speed must be a number from ${minSpeed} to ${maxSpeed}, got ${speed}`);
  }
}

export class WallClockPacer {
  private readonly options: WallClockPacerOptions;
  private stopped = true;
  private wakeUp: (() => void) | undefined;
  private sleepTimer: Timer | undefined;
  private loop: Promise<void> | undefined;
  private speedFactor: number;
  /** The wall-clock and virtual instants from which the current speed counts. */
  private anchorRealMs: number;
  private anchorVirtualMs: number;

  constructor(options: WallClockPacerOptions) {
    this.options = options;
    this.speedFactor = options.speed ?? 1;
    checkSpeed(this.speedFactor);
    this.anchorRealMs = options.real.now();
    this.anchorVirtualMs = options.virtual.now();
  }

  get speed(): number {
    return this.speedFactor;
  }

  /** Paces the clock at `speed` from now on; throws a RangeError outside minSpeed…maxSpeed. */
  setSpeed(speed: number): void {
    checkSpeed(speed);
    this.anchorVirtualMs = this.targetMs();
    this.anchorRealMs = this.options.real.now();
    this.speedFactor = speed;
    // Timers the old pace had the pacer sleep for may be due sooner now.
    this.sleepTimer?.cancel();
    this.wakeUp?.();
  }

  /** Where the virtual clock should be by now: never behind where it is. */
  private targetMs(): number {
    const elapsedRealMs = this.options.real.now() - this.anchorRealMs;
    return Math.max(this.anchorVirtualMs + elapsedRealMs * this.speedFactor, this.options.virtual.now());
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  /** Resolves once the pass in progress has finished; the clock is left alone afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sleepTimer?.cancel();
    this.wakeUp?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      await this.catchUp();
      await this.sleepUntilDue();
    }
  }

  /** Runs every timer due by now on the wall clock (scaled by the speed). */
  private async catchUp(): Promise<void> {
    try {
      await this.options.virtual.advanceTo(this.targetMs());
    } catch (error) {
      this.options.onTaskError(error);
    }
  }

  private sleepUntilDue(): Promise<void> {
    const nextDueMs = this.options.virtual.nextDueTime();
    const waitMs =
      nextDueMs === undefined
        ? pacerMaxWaitMs
        : Math.min(Math.max((nextDueMs - this.targetMs()) / this.speedFactor, 0), pacerMaxWaitMs);
    return new Promise<void>((resolve) => {
      this.wakeUp = resolve;
      this.sleepTimer = this.options.real.setTimer(waitMs, resolve);
    });
  }
}
