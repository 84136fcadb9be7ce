/**
 * The error classes a volume operation can end with (Kubernetes' pkg/volume/util/types). The
 * operation executor reads the class to decide what the actual state of the world becomes:
 *
 * - UncertainProgressError: the operation may still complete (a mount that timed out may yet appear),
 *   so the volume is recorded as Uncertain and will be torn down or retried from there.
 * - TransientOperationFailure: retry later, nothing changed.
 * - MountPreConditionFailed: the operation did not start at all (for example another pod holds a
 *   ReadWriteOncePod volume); it is retried without exponential backoff.
 * - anything else is final: the operation finished and failed.
 */

interface VolumeErrorOptions {
  /** The lower-level error this one reports (kept for diagnosis, not part of the message). */
  cause?: unknown;
}

/** The operation may still be in progress or may have half-completed. */
export class UncertainProgressError extends Error {
  constructor(message: string, options: VolumeErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "UncertainProgressError";
  }
}

/** A temporary failure: nothing changed, the caller should simply retry. */
export class TransientOperationFailure extends Error {
  constructor(message: string, options: VolumeErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "TransientOperationFailure";
  }
}

/** The operation was not attempted because a precondition does not hold yet. */
export class MountPreConditionFailed extends Error {
  constructor(message: string, options: VolumeErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "MountPreConditionFailed";
  }
}

export function isUncertainProgressError(err: unknown): err is UncertainProgressError {
  return err instanceof UncertainProgressError;
}

export function isTransientOperationFailure(err: unknown): err is TransientOperationFailure {
  return err instanceof TransientOperationFailure;
}

export function isMountPreConditionFailed(err: unknown): err is MountPreConditionFailed {
  return err instanceof MountPreConditionFailed;
}

/**
 * False for the two classes after which the operation may still change the world (uncertain or
 * transient); true for every other error, which is final.
 */
export function isOperationFinishedError(err: unknown): boolean {
  return !isUncertainProgressError(err) && !isTransientOperationFailure(err);
}

/**
 * NodeExpandVolume answered FailedPrecondition: the volume cannot grow on this node now (in use, and
 * the driver expands offline only). Kubernetes does not retry it here until the volume is mounted again.
 */
export class FailedPreconditionError extends Error {
  constructor(message: string, options: VolumeErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "FailedPreconditionError";
  }
}

/** The size asked for cannot be had (InvalidArgument, OutOfRange, NotFound): the claim is NodeResizeInfeasible. */
export class InfeasibleError extends Error {
  constructor(message: string, options: VolumeErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "InfeasibleError";
  }
}

/** The plugin cannot do this at all (a CSI driver without the EXPAND_VOLUME node capability). */
export class OperationNotSupportedError extends Error {
  constructor(message: string, options: VolumeErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "OperationNotSupportedError";
  }
}
