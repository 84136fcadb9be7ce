/**
 * Quantity fields (`storage: 10Gi`, `sizeLimit: 1Gi`): a string or a bare number, as Kubernetes
 * accepts both, parsed with Kubernetes' own rules and messages.
 */
import type { FieldCause } from "../errors.ts";
import { parseQuantity, type Quantity, QuantityParseError } from "../quantity.ts";
import { negativeMessage, notPositiveMessage } from "./field-checks.ts";
import { invalid, typeInvalid } from "./field-errors.ts";
import { key } from "./field-path.ts";
import { readObject } from "./json-reader.ts";

/** Reads a quantity; a malformed one is reported with Kubernetes' parse message. */
export function readQuantity(value: unknown, path: string, out: FieldCause[]): Quantity | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" && typeof value !== "number") {
    out.push(typeInvalid(path, value, "string"));
    return undefined;
  }
  const text = String(value);
  try {
    return parseQuantity(text);
  } catch (error) {
    if (!(error instanceof QuantityParseError)) throw error;
    out.push(invalid(path, text, error.message));
    return undefined;
  }
}

/** A quantity that must be above zero (PV capacity, PVC storage request). */
export function checkPositiveQuantity(quantity: Quantity, path: string, out: FieldCause[]): void {
  if (quantity.sign() <= 0) out.push(invalid(path, quantity.toString(), notPositiveMessage));
}

export function checkNonNegativeQuantity(quantity: Quantity, path: string, out: FieldCause[]): void {
  if (quantity.sign() < 0) out.push(invalid(path, quantity.toString(), negativeMessage));
}

/** A resource list (`{storage: 1Gi, cpu: 100m}`) with every entry parsed; the caller applies its sign rules. */
export function readResourceList(value: unknown, path: string, out: FieldCause[]): ReadonlyMap<string, Quantity> {
  const quantities = new Map<string, Quantity>();
  for (const [resourceName, entry] of Object.entries(readObject(value, path, out) ?? {})) {
    const quantity = readQuantity(entry, key(path, resourceName), out);
    if (quantity !== undefined) quantities.set(resourceName, quantity);
  }
  return quantities;
}
