/**
 * How a driver reports a failure of its node (a mount that did not work, a file it could not
 * write): a CsiError the caller can act on, never a bare Error (which gRPC would turn into Unknown
 * with no hint of which step failed).
 */

import { errorMessage } from "../../../runtime/error-message.ts";
import { CsiError } from "../../grpc/errors.ts";

/** Internal, naming the step: `NodeStageVolume: bind mount of /a on /b failed: mount failed: ...`. */
export function internalFailure(step: string, error: unknown): CsiError {
  if (error instanceof CsiError) return error;
  const detail = errorMessage(error);
  return new CsiError("Internal", `${step} failed: ${detail}`);
}

/** Runs a node step; any failure that is not already a CsiError becomes Internal naming the step. */
export async function step<T>(description: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw internalFailure(description, error);
  }
}
