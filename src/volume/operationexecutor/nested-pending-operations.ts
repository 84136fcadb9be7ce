/**
 * Kubernetes' nestedpendingoperations: at most one operation runs per colliding key (spec §4.3),
 * and an operation that failed is refused with exponential backoff until its retry time (§4.4).
 *
 * - A pending operation whose key collides with the new one refuses it with AlreadyExistsError.
 * - Backoff is kept per exact key including the operation name, so a failed `volume_mount` does not
 *   delay an `unmount_device` of the same volume; success deletes the record (backoff reset).
 * - An operation that ends with MountPreConditionFailed never started: no backoff.
 * - Keys with an empty volume name are never deduplicated and keep no backoff.
 *
 * `run` starts the operation on a later microtask and returns at once; the caller learns about the
 * outcome through the state the operation updates, as with Kubernetes' goroutines.
 */

import type { OperationDebugState } from "../../api/debug/debug-state.ts";
import { operationDebugState } from "../../api/debug/operation-state.ts";
import { ExponentialBackoff } from "../../runtime/backoff.ts";
import type { Clock } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { AlreadyExistsError, hasMountPreConditionFailed } from "./operation-errors.ts";
import {
  emptyVolumeName,
  formatOperationKey,
  keysCollide,
  type OperationKey,
  operationKey,
  sameOperation,
} from "./operation-key.ts";
import type { OperationName } from "./operation-names.ts";

/** An operation ready to run: throws (rejects) with the error that goes into backoff. */
export type OperationFunc = () => Promise<void>;

interface OperationRecord {
  key: OperationKey;
  pending: boolean;
  backoff: ExponentialBackoff;
}

interface NestedPendingOperationsOptions {
  clock: Clock;
  logger: Logger;
}

export class NestedPendingOperations {
  private readonly clock: Clock;
  private readonly logger: Logger;
  /** Records by volume name: every lookup concerns one volume, so it costs O(operations on that volume). */
  private readonly byVolume = new Map<string, OperationRecord[]>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(options: NestedPendingOperationsOptions) {
    this.clock = options.clock;
    this.logger = options.logger;
  }

  /**
   * Starts `operation` under `key`, or returns why it cannot start: AlreadyExistsError while a
   * colliding operation is pending, ExponentialBackoffError while this exact operation is backing off.
   */
  run(key: OperationKey, operation: OperationFunc): Error | undefined {
    if (key.volumeName === emptyVolumeName) {
      this.start(undefined, key, operation);
      return undefined;
    }
    const records = this.recordsOf(key.volumeName);
    for (const record of records) {
      if (record.pending && keysCollide(record.key, key)) return new AlreadyExistsError(key);
    }
    let record = records.find((candidate) => sameOperation(candidate.key, key));
    if (record !== undefined) {
      const refusal = record.backoff.retryError(formatOperationKey(key), this.clock.now());
      if (refusal !== undefined) return refusal;
      record.pending = true;
    } else {
      record = { key, pending: true, backoff: new ExponentialBackoff() };
      records.push(record);
    }
    this.start(record, key, operation);
    return undefined;
  }

  /** True while an operation colliding with `(volumeName, podName, nodeName)` runs. */
  isOperationPending(volumeName: string, podName: string, nodeName: string): boolean {
    // Asked for every volume at every reconciler pass, on the controller and on each node: most
    // volumes have no operation, and those cost one Map lookup.
    const records = this.byVolume.get(volumeName);
    if (records === undefined) return false;
    const probe = { volumeName, podName, nodeName };
    for (const record of records) if (record.pending && keysCollide(record.key, probe)) return true;
    return false;
  }

  /** False while a colliding operation runs or while this exact operation is in backoff. */
  isOperationSafeToRetry(volumeName: string, podName: string, nodeName: string, operationName: OperationName): boolean {
    if (this.isOperationPending(volumeName, podName, nodeName)) return false;
    const key = operationKey(volumeName, podName, nodeName, operationName);
    const record = this.byVolume.get(volumeName)?.find((candidate) => sameOperation(candidate.key, key));
    return record === undefined || record.backoff.safeToRetry(this.clock.now());
  }

  /** Every operation running or remembered with its backoff, for the component's debug endpoint. */
  debugState(): OperationDebugState[] {
    const states: OperationDebugState[] = [];
    for (const records of this.byVolume.values()) {
      for (const { key, pending, backoff } of records) {
        const { operationName, volumeName, podName, nodeName } = key;
        states.push(operationDebugState({ operationName, volumeName, podName, nodeName }, pending, backoff));
      }
    }
    return states;
  }

  /** Operations running now. */
  pendingCount(): number {
    return this.inFlight.size;
  }

  /** Resolves once no operation runs (those started meanwhile included); for tests and orderly shutdown. */
  async waitForIdle(): Promise<void> {
    // Bounded by the operations callers start; each pass waits for all that were running.
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private recordsOf(volumeName: string): OperationRecord[] {
    let records = this.byVolume.get(volumeName);
    if (records === undefined) {
      records = [];
      this.byVolume.set(volumeName, records);
    }
    return records;
  }

  private start(record: OperationRecord | undefined, key: OperationKey, operation: OperationFunc): void {
    const running = Promise.resolve()
      .then(operation)
      .then(
        () => this.completed(record),
        (err: unknown) => this.failed(record, key, err),
      )
      .finally(() => this.inFlight.delete(running));
    this.inFlight.add(running);
  }

  private completed(record: OperationRecord | undefined): void {
    if (record !== undefined) this.remove(record);
  }

  private failed(record: OperationRecord | undefined, key: OperationKey, err: unknown): void {
    if (record === undefined || hasMountPreConditionFailed(err)) {
      if (record !== undefined) this.remove(record);
      this.logger.error(`operation ${formatOperationKey(key)} failed with: ${errorMessage(err)}`);
      return;
    }
    record.backoff.update(err, this.clock.now());
    record.pending = false;
    this.logger.error(record.backoff.completionMessage(formatOperationKey(key)));
  }

  private remove(record: OperationRecord): void {
    const records = this.byVolume.get(record.key.volumeName);
    if (records === undefined) return;
    const index = records.indexOf(record);
    if (index >= 0) records.splice(index, 1);
    if (records.length === 0) this.byVolume.delete(record.key.volumeName);
  }
}
