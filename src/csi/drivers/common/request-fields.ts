/**
 * Checks of the REQUIRED fields of CSI requests. A missing or malformed field is InvalidArgument
 * naming the field as csi.proto spells it (`volume_id`, `staging_target_path`), so the caller knows
 * what to fix.
 */
import { CsiError } from "../../grpc/errors.ts";
import { maxCsiStringBytes } from "./constants.ts";

/** The value of a REQUIRED string field; InvalidArgument when it is empty. */
export function requireField(value: string, field: string, rpc: string): string {
  if (value === "") throw new CsiError("InvalidArgument", `${rpc}: ${field} is required`);
  return value;
}

/** A REQUIRED id-like field (volume_id, node_id, name): non-empty and within CSI's 128 bytes. */
export function requireIdField(value: string, field: string, rpc: string): string {
  requireField(value, field, rpc);
  const bytes = Buffer.byteLength(value);
  if (bytes > maxCsiStringBytes) {
    throw new CsiError(
      "InvalidArgument",
      `${rpc}: ${field} is ${bytes} bytes long, more than CSI's ${maxCsiStringBytes}`,
    );
  }
  return value;
}

/** A REQUIRED path field: non-empty, absolute, without `..` (a driver must never mount outside it). */
export function requirePathField(value: string, field: string, rpc: string): string {
  requireField(value, field, rpc);
  if (!value.startsWith("/")) {
    throw new CsiError("InvalidArgument", `${rpc}: ${field} must be an absolute path, got ${JSON.stringify(value)}`);
  }
  if (value.split("/").includes("..")) {
    throw new CsiError("InvalidArgument", `${rpc}: ${field} must not contain "..", got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A REQUIRED message field; InvalidArgument when it is absent. */
export function requireMessage<T>(value: T | null, field: string, rpc: string): T {
  if (value === null) throw new CsiError("InvalidArgument", `${rpc}: ${field} is required`);
  return value;
}

/**
 * NodeGetVolumeStats' `volume_path` once the volume is known to exist: a path that cannot name a
 * place where the volume is (relative, or with `..`) is NotFound, the spec's answer for "volume not
 * present at volume_path" — not InvalidArgument, which a CO takes for a bug in its own request.
 */
export function requireStatsPath(volumePath: string, volumeId: string, rpc: string): string {
  if (!volumePath.startsWith("/") || volumePath.split("/").includes("..")) {
    throw new CsiError(
      "NotFound",
      `${rpc}: volume ${volumeId} is not present at volume_path ${JSON.stringify(volumePath)} (not an absolute path)`,
    );
  }
  return volumePath;
}

/**
 * NodePublishVolume's `staging_target_path` for a node plugin with STAGE_UNSTAGE_VOLUME: empty is
 * FailedPrecondition (the spec's answer: the CO skipped NodeStageVolume), otherwise a path field.
 */
export function requirePublishStagingPath(value: string, rpc: string): string {
  if (value === "") {
    throw new CsiError(
      "FailedPrecondition",
      `${rpc}: staging_target_path is empty but this node plugin stages volumes; call NodeStageVolume first`,
    );
  }
  return requirePathField(value, "staging_target_path", rpc);
}
