/**
 * The revision bounds every backend enforces on reads from the past, with Kubernetes' errors.
 */
import { ApiError, gone } from "../errors.ts";

/** Kubernetes' answer to a read at a revision the store has not reached yet (504, retry later). */
export function tooLargeResourceVersion(requested: number, current: number): ApiError {
  return new ApiError("Timeout", `Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version", field: "" }],
  });
}

/** Throws Gone below the compacted revision and Timeout above the current one. */
export function checkReadableRevision(requested: number, compacted: number, current: number): void {
  if (requested < compacted) throw gone(requested, compacted);
  if (requested > current) throw tooLargeResourceVersion(requested, current);
}

/** Throws Gone when a watch would need events from before the compacted revision. */
export function checkWatchableRevision(fromRevision: number, compacted: number): void {
  if (fromRevision < compacted) throw gone(fromRevision, compacted);
}
