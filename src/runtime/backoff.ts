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

/** The refusal returned while an operation is backing off; `operationName` says which operation. */
export class ExponentialBackoffError extends Error {
  readonly operationName: string;

  constructor(operationName: string, message: string) {
    super(message);
    this.name = "ExponentialBackoffError";
    this.operationName = operationName;
  }
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
    return new ExponentialBackoffError(
      operationName,
      `Failed to create operation with name ${goQuote(operationName)}. ` +
        `An operation with that name failed at ${formatGoTime(this.lastErrorTimeMs)}. ` +
        `No retries permitted until ${formatGoTime(this.retryPermittedAfterMs())} ` +
        `(${formatGoDuration(this.durationBeforeRetryMs)}). Last error: ${goQuote(errorMessage(this.lastError))}.`,
    );
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
