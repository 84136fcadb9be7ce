/**
 * CreateVolume's capacity_range: which size a new volume gets, and whether an existing volume of the
 * same name satisfies a repeated request (CSI's idempotency on `name`).
 */
import { CsiError } from "../../grpc/errors.ts";
import type { CapacityRange } from "../../proto/types.ts";
import { defaultMaxVolumeCapacityBytes, defaultVolumeCapacityBytes } from "./constants.ts";

export interface CapacityLimits {
  defaultCapacityBytes: number;
  maxCapacityBytes: number;
}

/** The sizes a bundled driver may be configured with; each one left out takes the bundled default. */
export interface CapacityOptions {
  defaultVolumeCapacityBytes?: number;
  maxVolumeCapacityBytes?: number;
}

export function capacityLimitsOf(options: CapacityOptions = {}): CapacityLimits {
  return {
    defaultCapacityBytes: options.defaultVolumeCapacityBytes ?? defaultVolumeCapacityBytes,
    maxCapacityBytes: options.maxVolumeCapacityBytes ?? defaultMaxVolumeCapacityBytes,
  };
}

/**
 * The size to create: required_bytes when set, else the default capped by limit_bytes. Negative or
 * crossed bounds are InvalidArgument; more than the driver's maximum is OutOfRange.
 */
export function capacityFor(range: CapacityRange | null, limits: CapacityLimits, rpc: string): number {
  const requiredBytes = range?.requiredBytes ?? 0;
  const limitBytes = range?.limitBytes ?? 0;
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
  const capacityBytes =
    requiredBytes > 0
      ? requiredBytes
      : limitBytes > 0
        ? Math.min(limits.defaultCapacityBytes, limitBytes)
        : limits.defaultCapacityBytes;
  if (capacityBytes > limits.maxCapacityBytes) {
    throw new CsiError(
      "OutOfRange",
      `${rpc}: requested capacity ${capacityBytes} bytes is more than this driver's maximum of ${limits.maxCapacityBytes} bytes`,
    );
  }
  return capacityBytes;
}

/** Whether a volume of `capacityBytes` satisfies the range (CSI: "compatible with capacity_range"). */
export function capacityFits(capacityBytes: number, range: CapacityRange | null): boolean {
  const requiredBytes = range?.requiredBytes ?? 0;
  const limitBytes = range?.limitBytes ?? 0;
  return capacityBytes >= requiredBytes && (limitBytes === 0 || capacityBytes <= limitBytes);
}
