/**
 * Kubernetes' goroutinemap with exponential backoff on error: long operations (provision, delete,
 * recycle) run in the background, at most one per name. Starting a name that is still running is
 * refused; after a failure the name is refused until its backoff (500 ms doubling to 2 min 2 s)
 * has passed; a success forgets the name and its backoff. Callers retry on their next sync, and a
 * refusal is not an error for them.
 */
import type { OperationDebugState } from "../../api/debug/debug-state.ts";
import { operationDebugState } from "../../api/debug/operation-state.ts";
import { ExponentialBackoff } from "../../runtime/backoff.ts";
import type { Clock } from "../../runtime/clock.ts";
import { goQuote } from "../../runtime/go-quote.ts";
import type { Logger } from "../../runtime/logger.ts";

/** Refusal of a name whose operation is still running: an ordinary answer, so no stack trace. */
export class OperationAlreadyRunningError extends Error {
  constructor(readonly operationName: string) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(
      `Failed to create operation with name ${goQuote(operationName)}. An operation with that name is already executing.`,
    );
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "OperationAlreadyRunningError";
  }
}

interface OperationRecord {
  pending: boolean;
  backoff: ExponentialBackoff;
  /** Settles when the running operation has finished (and its record been updated). */
  done: Promise<void>;
}

export class OperationMap {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly operations = new Map<string, OperationRecord>();

  constructor(clock: Clock, logger: Logger) {
    this.clock = clock;
    this.logger = logger;
  }

  /**
   * Starts `operation` under `name` in the background. Returns undefined when it started, or the
   * refusal (already running, or backing off after a failure) when it did not.
   */
  run(name: string, operation: () => Promise<void>): Error | undefined {
    const existing = this.operations.get(name);
    if (existing?.pending) return new OperationAlreadyRunningError(name);
    const refusal = existing?.backoff.retryError(name, this.clock.now());
    if (refusal !== undefined) return refusal;
    const record: OperationRecord = {
      pending: true,
      backoff: existing?.backoff ?? new ExponentialBackoff(),
      done: Promise.resolve(),
    };
    this.operations.set(name, record);
    // Like a goroutine: the operation starts after the caller has returned, never inside its stack.
    record.done = Promise.resolve()
      .then(operation)
      .then(
        () => this.completed(name),
        (error: unknown) => this.failed(name, record, error),
      );
    return undefined;
  }

  /** Every operation running or backing off, by name (`provision-ns/claim[uid]`, `delete-pv[uid]`). */
  debugState(): OperationDebugState[] {
    return [...this.operations].map(([operationName, record]) =>
      operationDebugState({ operationName, volumeName: "", podName: "", nodeName: "" }, record.pending, record.backoff),
    );
  }

  isRunning(name: string): boolean {
    return this.operations.get(name)?.pending ?? false;
  }

  /** Resolves once no operation is running (for an orderly stop and for tests). */
  async waitForIdle(): Promise<void> {
    for (;;) {
      const running = [...this.operations.values()].filter((record) => record.pending);
      if (running.length === 0) return;
      await Promise.all(running.map((record) => record.done));
    }
  }

  private completed(name: string): void {
    this.operations.delete(name);
  }

  private failed(name: string, record: OperationRecord, error: unknown): void {
    record.backoff.update(error, this.clock.now());
    record.pending = false;
    this.logger.warn(record.backoff.completionMessage(name));
  }
}
