/**
 * Kubernetes' generic `wait.Backoff` (initial duration, factor, jitter, steps, cap) and the
 * `ExponentialBackoffManager` reset rule, for polls such as the CSI attacher waiting on a
 * VolumeAttachment and the RBD plugin waiting for image watchers to go away. Jitter is drawn from
 * the Rng passed in, so a seed replays the same delays.
 */
import type { Clock } from "./clock.ts";
import type { Rng } from "./rng.ts";

export interface BackoffOptions {
  /** The first delay. */
  initialMs: number;
  /** Each delay is the previous one times this (1 keeps it constant). */
  factor: number;
  /** Delays never exceed this (before jitter); reaching it ends the growth. */
  capMs?: number;
  /** Each returned delay is lengthened by up to `jitter` × itself (0.1 → up to +10%). */
  jitter?: number;
  /** How many delays grow before the backoff holds its last value; unlimited when omitted. */
  steps?: number;
  /** If more than this passed since the previous step, start again from `initialMs` (needs a clock). */
  resetAfterMs?: number;
}

/** CSI attacher's VolumeAttachment poll: 500 ms ×1.05, at most 7 s, jitter 0.1, reset after 1 min. */
export const csiVolumeAttachmentPollBackoff: Readonly<BackoffOptions> = {
  initialMs: 500,
  factor: 1.05,
  capMs: 7_000,
  jitter: 0.1,
  resetAfterMs: 60_000,
};

/** RBD plugin's wait for image watchers to disappear: 1 s ×1.4, 10 attempts (about 30–70 s). */
export const rbdImageWatcherBackoff: Readonly<BackoffOptions> = { initialMs: 1_000, factor: 1.4, steps: 10 };

/** What `exponentialBackoffWait` rejects with when the condition never held; Go's wait.ErrWaitTimeout text. */
export class WaitTimeoutError extends Error {
  constructor() {
    super("timed out waiting for the condition");
    this.name = "WaitTimeoutError";
  }
}

function validateOptions(options: BackoffOptions, clock: Clock | undefined): void {
  const problems: string[] = [];
  if (!(options.initialMs >= 0) || !Number.isFinite(options.initialMs)) problems.push("initialMs must be >= 0");
  if (!(options.factor >= 0) || !Number.isFinite(options.factor)) problems.push("factor must be >= 0");
  if (options.capMs !== undefined && !(options.capMs > 0)) problems.push("capMs must be > 0");
  if (options.jitter !== undefined && !(options.jitter >= 0)) problems.push("jitter must be >= 0");
  if (options.steps !== undefined && !(Number.isSafeInteger(options.steps) && options.steps >= 1)) {
    problems.push("steps must be an integer >= 1");
  }
  if (options.resetAfterMs !== undefined && clock === undefined) problems.push("resetAfterMs needs a clock");
  if (problems.length > 0) throw new RangeError(`Backoff: ${problems.join("; ")}`);
}

export class Backoff {
  private readonly options: BackoffOptions;
  private readonly rng: Rng;
  private readonly clock: Clock | undefined;
  private durationMs: number;
  private stepsLeft: number;
  private lastStepAtMs: number | undefined;

  /** `clock` is only needed for `resetAfterMs`. */
  constructor(options: BackoffOptions, rng: Rng, clock?: Clock) {
    validateOptions(options, clock);
    this.options = { ...options };
    this.rng = rng;
    this.clock = clock;
    this.durationMs = options.initialMs;
    this.stepsLeft = options.steps ?? Number.POSITIVE_INFINITY;
  }

  /** How many more delays will grow before the backoff holds steady. */
  get remainingSteps(): number {
    return this.stepsLeft;
  }

  /** Starts again from the initial delay with all steps available. */
  reset(): void {
    this.durationMs = this.options.initialMs;
    this.stepsLeft = this.options.steps ?? Number.POSITIVE_INFINITY;
  }

  /** The next delay to wait, in milliseconds (wait.Backoff.Step). */
  step(): number {
    this.resetIfIdleLongEnough();
    if (this.stepsLeft < 1) return this.withJitter(this.durationMs);
    this.stepsLeft--;
    const delayMs = this.durationMs;
    this.grow();
    return this.withJitter(delayMs);
  }

  private grow(): void {
    if (this.options.factor === 0) return;
    this.durationMs *= this.options.factor;
    const capMs = this.options.capMs;
    if (capMs !== undefined && this.durationMs > capMs) {
      this.durationMs = capMs;
      this.stepsLeft = 0;
    }
  }

  private resetIfIdleLongEnough(): void {
    const { resetAfterMs } = this.options;
    if (resetAfterMs === undefined || this.clock === undefined) return;
    const nowMs = this.clock.now();
    if (this.lastStepAtMs !== undefined && nowMs - this.lastStepAtMs > resetAfterMs) this.reset();
    this.lastStepAtMs = nowMs;
  }

  private withJitter(delayMs: number): number {
    const jitter = this.options.jitter ?? 0;
    return jitter > 0 ? delayMs + this.rng.next() * jitter * delayMs : delayMs;
  }
}

/**
 * Go's `wait.ExponentialBackoff`: checks `condition`, sleeping one backoff step between checks, at most
 * `steps` checks in all (so `steps` is required; reaching the cap ends the wait early, as in Go).
 * Resolves when the condition holds, rejects with what it threw, or with WaitTimeoutError after the
 * last check.
 */
export async function exponentialBackoffWait(
  clock: Clock,
  backoff: Backoff,
  condition: () => boolean | Promise<boolean>,
): Promise<void> {
  if (!Number.isFinite(backoff.remainingSteps)) {
    throw new RangeError("exponentialBackoffWait: the backoff needs a finite `steps` to bound the number of checks");
  }
  // Each pass uses one step, so this ends after at most `steps` checks (sooner if the cap is reached).
  while (backoff.remainingSteps > 0) {
    if (await condition()) return;
    if (backoff.remainingSteps === 1) break;
    await clock.sleep(backoff.step());
  }
  throw new WaitTimeoutError();
}
