/**
 * Step-by-step progress for `kvol up`, `kvol server` and `kvol node`: a step that ends within
 * `progressAfterMs` prints one line when done; a longer one says what it is waiting for once that
 * second has passed, then how long it took.
 *
 *   ✓ control plane started
 *   … starting node-1
 *   ✓ starting node-1 (1.4 s)
 *
 * These lines stay, as a log of what a long-running process did; the client commands use
 * `client/progress.ts`, a transient line on a terminal that is erased when the work ends.
 */
import type { RealClock } from "../runtime/real-clock.ts";
import { progressAfterMs } from "./embedded/constants.ts";

const msPerSecond = 1_000;

export class StepProgress {
  constructor(
    private readonly clock: RealClock,
    private readonly write: (text: string) => void,
  ) {}

  async step<T>(label: string, work: () => Promise<T>): Promise<T> {
    const startMs = this.clock.now();
    let announced = false;
    const timer = this.clock.setTimer(progressAfterMs, () => {
      announced = true;
      this.write(`… ${label}\n`);
    });
    try {
      const result = await work();
      const tookMs = this.clock.now() - startMs;
      this.write(announced ? `✓ ${label} (${(tookMs / msPerSecond).toFixed(1)} s)\n` : `✓ ${label}\n`);
      return result;
    } catch (error) {
      this.write(`✗ ${label}\n`);
      throw error;
    } finally {
      timer.cancel();
    }
  }
}
