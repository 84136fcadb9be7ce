/**
 * The capacity a user gives a bundled driver's pool (`kvol csi-driver --capacity-limit 10Gi`,
 * `kvol up --csi-capacity-limit 10Gi`, a scenario's `capacityLimit`): all its volumes together may
 * take at most this, and GetCapacity (so every CSIStorageCapacity) reports what is left of it.
 */
import { parseQuantity, QuantityParseError } from "../../../api/quantity.ts";
import { diskDriverName, hostpathDriverName } from "./constants.ts";

/** The drivers whose GetCapacity a limit shapes. */
export const capacityLimitDrivers: readonly string[] = [hostpathDriverName, diskDriverName];

/** Bytes from a quantity; an Error naming `what` (the flag) and what is wrong otherwise. */
export function parseCapacityLimit(text: string, what: string): number {
  let bytes: number;
  try {
    bytes = Number(parseQuantity(text).toBytes());
  } catch (error) {
    if (!(error instanceof QuantityParseError)) throw error;
    throw new Error(`${what} must be a quantity of bytes such as 512Mi or 10Gi, got ${JSON.stringify(text)}`);
  }
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new Error(`${what} must be more than zero bytes and at most 8Pi, got ${JSON.stringify(text)}`);
  }
  return bytes;
}
