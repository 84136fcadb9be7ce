/**
 * Int-or-percent rollout fields (maxSurge, maxUnavailable), as apps validation checks them.
 */
import type { FieldCause } from "../errors.ts";
import { negativeMessage } from "./field-checks.ts";
import { invalid } from "./field-errors.ts";
import { percentProblems } from "./names.ts";

const maxPercent = 100;

/** The number in `25%` or `3`; 0 for text that is neither, as Kubernetes' getIntOrPercentValue. */
export function intOrPercentValue(value: number | string): number {
  if (typeof value === "number") return value;
  if (percentProblems(value).length === 0) return Number(value.slice(0, -1));
  return /^-?[0-9]+$/.test(value) ? Number(value) : 0;
}

/** A non-negative integer or a percentage (ValidatePositiveIntOrPercent). */
export function checkIntOrPercent(value: number | string, path: string, out: FieldCause[]): void {
  if (typeof value === "number") {
    if (value < 0) out.push(invalid(path, value, negativeMessage));
    return;
  }
  for (const problem of percentProblems(value)) out.push(invalid(path, value, problem));
}

export function checkNotMoreThan100Percent(value: number | string, path: string, out: FieldCause[]): void {
  if (typeof value === "string" && percentProblems(value).length === 0 && intOrPercentValue(value) > maxPercent) {
    out.push(invalid(path, value, "must not be greater than 100%"));
  }
}
