/**
 * Kubernetes' per-operation exponential backoff (pkg/util/goroutinemap/exponentialbackoff), used by
 * nested pending operations: after a failure the same operation is refused until its backoff has
 * passed — 500 ms after the first failure, doubling per consecutive failure, capped at 2 min 2 s.
 * Success is handled by the caller deleting the whole record (which resets the backoff).
 */
import { formatGoDuration, formatGoTime } from "./duration.ts";
import { errorMessage } from "./error-message.ts";
import { goQuote } from "./go-quote.ts";

export const initialDurationBeforeRetryMs = 500;
const durationBeforeRetryFactor = 2;
/** 2 min 2 s: the first doubling past two minutes (128 s) is clipped here. */
export const maxDurationBeforeRetryMs = 122_000;

/** What a refusal reports: the backoff's state when the attempt was refused. */
interface RefusedAttempt {
  operationName: string;
  lastError: unknown;
  lastErrorTimeMs: number;
  durationBeforeRetryMs: number;
}

/**
 * The refusal returned while an operation is backing off; `operationName` says which operation.
 * A reconciler asks every 100 ms and mostly drops the answer, so the refusal carries no stack trace
 * and its text is written only when someone reads it.
 */
export class ExponentialBackoffError extends Error {
  readonly operationName: string;
  private readonly refused: RefusedAttempt;
  private text: string | undefined;

  constructor(refused: RefusedAttempt) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super();
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "ExponentialBackoffError";
    this.operationName = refused.operationName;
    this.refused = refused;
  }

  override get message(): string {
    this.text ??= refusalText(this.refused);
    return this.text;
  }
}

function refusalText(refused: RefusedAttempt): string {
  const { operationName, lastError, lastErrorTimeMs, durationBeforeRetryMs } = refused;
  return (
    `Failed to create operation with name ${goQuote(operationName)}. ` +
    `An operation with that name failed at ${formatGoTime(lastErrorTimeMs)}. ` +
    `No retries permitted until ${formatGoTime(lastErrorTimeMs + durationBeforeRetryMs)} ` +
    `(${formatGoDuration(durationBeforeRetryMs)}). Last error: ${goQuote(errorMessage(lastError))}.`
  );
}

export class ExponentialBackoff {
  lastError: unknown;
  /** Epoch milliseconds of the last failure; 0 before any failure. */
  lastErrorTimeMs = 0;
  /** 0 until the first failure, then 500 ms doubling up to 122 s. */
  durationBeforeRetryMs = 0;

  /** Records a failure at `nowMs` and lengthens the wait before the next attempt. */
  update(error: unknown, nowMs: number): void {
    this.durationBeforeRetryMs =
      this.durationBeforeRetryMs === 0
        ? initialDurationBeforeRetryMs
        : Math.min(this.durationBeforeRetryMs * durationBeforeRetryFactor, maxDurationBeforeRetryMs);
    this.lastError = error;
    this.lastErrorTimeMs = nowMs;
  }

  /** When the next attempt is permitted (epoch milliseconds). */
  retryPermittedAfterMs(): number {
    return this.lastErrorTimeMs + this.durationBeforeRetryMs;
  }

  /** True once strictly more than durationBeforeRetry has passed since the last failure, as in Kubernetes. */
  safeToRetry(nowMs: number): boolean {
    return this.durationBeforeRetryMs === 0 || nowMs - this.lastErrorTimeMs > this.durationBeforeRetryMs;
  }

  /** The refusal for a new attempt at `nowMs`, or undefined when it is safe to retry. */
  retryError(operationName: string, nowMs: number): ExponentialBackoffError | undefined {
    if (this.safeToRetry(nowMs)) return undefined;
    const { lastError, lastErrorTimeMs, durationBeforeRetryMs } = this;
    return new ExponentialBackoffError({ operationName, lastError, lastErrorTimeMs, durationBeforeRetryMs });
  }

  /**
   * The line logged when an operation fails and enters (or stays in) backoff. Unlike the refusal
   * above, Kubernetes prints the error with `%v` here, unquoted (GenerateNoRetriesPermittedMsg).
   */
  completionMessage(operationName: string): string {
    return (
      `Operation for ${goQuote(operationName)} failed. ` +
      `No retries permitted until ${formatGoTime(this.retryPermittedAfterMs())} ` +
      `(durationBeforeRetry ${formatGoDuration(this.durationBeforeRetryMs)}). Error: ${errorMessage(this.lastError)}`
    );
  }
}
