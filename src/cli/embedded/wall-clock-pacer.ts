/**
 * Moves a VirtualClock along with the wall clock, so a Cluster built for simulation runs in real
 * time: every timer fires when its wall-clock moment comes (at most `pacerMaxWaitMs` late), and work
 * that API requests queue meanwhile runs within the same bound. Everything the cluster does still
 * goes through its one clock, as in the simulator.
 */

import type { Timer } from "../../runtime/clock.ts";
import type { RealClock } from "../../runtime/real-clock.ts";
import type { VirtualClock } from "../../runtime/virtual-clock.ts";
import { pacerMaxWaitMs } from "./constants.ts";

export interface WallClockPacerOptions {
  virtual: VirtualClock;
  real: RealClock;
  /** A timer callback of the cluster threw; the pacer goes on with the next ones. */
  onTaskError: (error: unknown) => void;
}

export class WallClockPacer {
  private readonly options: WallClockPacerOptions;
  private stopped = true;
  private wakeUp: (() => void) | undefined;
  private sleepTimer: Timer | undefined;
  private loop: Promise<void> | undefined;

  constructor(options: WallClockPacerOptions) {
    this.options = options;
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

  /** Runs every timer due by now on the wall clock. */
  private async catchUp(): Promise<void> {
    const { virtual, real } = this.options;
    try {
      await virtual.advanceTo(Math.max(real.now(), virtual.now()));
    } catch (error) {
      this.options.onTaskError(error);
    }
  }

  private sleepUntilDue(): Promise<void> {
    const { virtual, real } = this.options;
    const nextDueMs = virtual.nextDueTime();
    const waitMs =
      nextDueMs === undefined ? pacerMaxWaitMs : Math.min(Math.max(nextDueMs - real.now(), 0), pacerMaxWaitMs);
    return new Promise<void>((resolve) => {
      this.wakeUp = resolve;
      this.sleepTimer = real.setTimer(waitMs, resolve);
    });
  }
}
