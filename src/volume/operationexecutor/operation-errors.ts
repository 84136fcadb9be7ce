/**
 * Refusals to start an operation (spec §4.3). Callers retry every loop pass and ignore these
 * silently ("expected" errors), as Kubernetes' reconcilers do; anything else is worth a log line.
 */
import { ExponentialBackoffError } from "../../runtime/backoff.ts";
import { isMountPreConditionFailed } from "../errors.ts";
import { formatOperationKey, type OperationKey } from "./operation-key.ts";

/** An operation whose key collides with a pending one was refused. */
export class AlreadyExistsError extends Error {
  readonly key: OperationKey;

  constructor(key: OperationKey) {
    super(
      `Failed to create operation with name ${formatOperationKey(key)}. An operation with that name is already executing.`,
    );
    this.name = "AlreadyExistsError";
    this.key = key;
  }
}

export function isAlreadyExistsError(err: unknown): err is AlreadyExistsError {
  return err instanceof AlreadyExistsError;
}

function isExponentialBackoffError(err: unknown): err is ExponentialBackoffError {
  return err instanceof ExponentialBackoffError;
}

/**
 * True for refusals a reconciler expects every pass and does not log: already executing, still in
 * backoff, or a mount precondition that does not hold yet.
 */
export function isExpectedError(err: unknown): boolean {
  return isAlreadyExistsError(err) || isExponentialBackoffError(err) || hasMountPreConditionFailed(err);
}

/** MountPreConditionFailed itself or as the cause of an operation error. */
export function hasMountPreConditionFailed(err: unknown): boolean {
  return isMountPreConditionFailed(err) || (err instanceof Error && isMountPreConditionFailed(err.cause));
}
