/**
 * Volume expansion in the bundled drivers: the size ControllerExpandVolume grows a volume to, and
 * the checks both expansion RPCs share, with the error codes of the CSI spec's tables
 * (InvalidArgument for a malformed request, OutOfRange for a size the driver cannot give,
 * FailedPrecondition when the volume is in a state that forbids it now).
 *
 * A driver expands ONLINE (any time, the default) or OFFLINE (its plugin capability says so): an
 * OFFLINE driver refuses to grow a volume that is published — the controller while it is attached
 * to a node, the node plugin while a pod has it mounted — with FailedPrecondition, which tells
 * Kubernetes to wait until the pod is gone (kubelet then grows it at the next mount, before the
 * pod sees it).
 */
import { CsiError } from "../../grpc/errors.ts";
import type { CapacityRange, PluginCapability } from "../../proto/types.ts";
import type { CapacityLimits } from "./capacity.ts";

export type VolumeExpansionMode = "ONLINE" | "OFFLINE";

/** The plugin capability that announces the mode (Kubernetes' external-resizer reads it). */
export function volumeExpansionCapability(mode: VolumeExpansionMode): PluginCapability {
  return { volumeExpansion: { type: mode } };
}

/**
 * The size to grow a volume of `currentBytes` to: required_bytes, or the current size when that is
 * already more (expansion is idempotent). A missing or malformed range is InvalidArgument; more
 * than the driver's maximum, or a limit below the current size (a shrink), is OutOfRange.
 */
export function expandedCapacity(
  range: CapacityRange | null,
  currentBytes: number,
  limits: CapacityLimits,
  rpc: string,
): number {
  const requiredBytes = range?.requiredBytes ?? 0;
  const limitBytes = range?.limitBytes ?? 0;
  if (requiredBytes <= 0 && limitBytes <= 0) {
    throw new CsiError("InvalidArgument", `${rpc}: capacity_range is required (required_bytes or limit_bytes)`);
  }
  if (requiredBytes < 0 || limitBytes < 0) {
    throw new CsiError(
      "InvalidArgument",
      `${rpc}: capacity_range must not be negative (required_bytes ${requiredBytes}, limit_bytes ${limitBytes})`,
    );
  }
  if (limitBytes > 0 && requiredBytes > limitBytes) {
    throw new CsiError(
      "InvalidArgument",
      `${rpc}: capacity_range.required_bytes ${requiredBytes} is more than capacity_range.limit_bytes ${limitBytes}`,
    );
  }
  if (requiredBytes > limits.maxCapacityBytes) {
    throw new CsiError(
      "OutOfRange",
      `${rpc}: requested capacity ${requiredBytes} bytes is more than this driver's maximum of ${limits.maxCapacityBytes} bytes`,
    );
  }
  if (limitBytes > 0 && limitBytes < currentBytes) {
    throw new CsiError(
      "OutOfRange",
      `${rpc}: capacity_range.limit_bytes ${limitBytes} is less than the volume's ${currentBytes} bytes; volumes are never shrunk`,
    );
  }
  return Math.max(requiredBytes, currentBytes);
}

/** NodeExpandVolume asking for more than the volume has: the controller has not grown it yet. */
export function checkNodeExpansionRange(
  range: CapacityRange | null,
  volumeBytes: number,
  volumeId: string,
  rpc: string,
): void {
  const requiredBytes = range?.requiredBytes ?? 0;
  if (requiredBytes < 0 || (range?.limitBytes ?? 0) < 0) {
    throw new CsiError("InvalidArgument", `${rpc}: capacity_range must not be negative`);
  }
  if (requiredBytes > volumeBytes) {
    throw new CsiError(
      "OutOfRange",
      `${rpc}: volume ${volumeId} has ${volumeBytes} bytes, less than the ${requiredBytes} asked for; ` +
        "ControllerExpandVolume grows it first",
    );
  }
}

/** FailedPrecondition for an OFFLINE driver asked to grow a volume in use. */
export function offlineExpansionRefused(rpc: string, driverName: string, volumeId: string, where: string): CsiError {
  return new CsiError(
    "FailedPrecondition",
    `${rpc}: ${driverName} expands volumes offline only and volume ${volumeId} is ${where}; ` +
      "it grows once no pod uses it",
  );
}
