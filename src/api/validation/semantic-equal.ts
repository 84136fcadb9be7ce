/**
 * Equality for immutability rules, after Kubernetes' apiequality.Semantic.DeepEqual: a field left
 * out equals its zero value (`readOnly: false`, `""`, `0`, `[]`), and quantities compare by
 * amount (`1Gi` equals `1073741824`), so re-applying an unchanged manifest is never an "update".
 */
import { parseQuantity, QuantityParseError } from "../quantity.ts";
import { isJsonObject } from "./json-reader.ts";

function isZeroValue(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === "" ||
    value === 0 ||
    value === false ||
    (Array.isArray(value) && value.length === 0)
  );
}

function arraysEqual(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let position = 0; position < a.length; position++) if (!semanticEqual(a[position], b[position])) return false;
  return true;
}

/** Every field of either object compared once (no union set: this runs on every pod update). */
function objectsEqual(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  for (const field of Object.keys(a)) if (!semanticEqual(a[field], b[field])) return false;
  for (const field of Object.keys(b)) if (!Object.hasOwn(a, field) && !semanticEqual(a[field], b[field])) return false;
  return true;
}

export function semanticEqual(a: unknown, b: unknown): boolean {
  // The same value is equal to itself; stored objects share frozen subtrees, so this is common.
  if (a === b) return true;
  if (isZeroValue(a) && isZeroValue(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return arraysEqual(a, b);
  if (isJsonObject(a) && isJsonObject(b)) return objectsEqual(a, b);
  return a === b;
}

/**
 * A quantity as a token of its amount alone (`1Gi`, `1024Mi` and `1073741824` give the same one),
 * for comparing; anything unparsable stays as it is.
 */
export function canonicalQuantity(value: unknown): unknown {
  if (typeof value !== "string" && typeof value !== "number") return value;
  try {
    return `${parseQuantity(String(value)).nanos}n`;
  } catch (error) {
    if (error instanceof QuantityParseError) return value;
    throw error;
  }
}

/** A resource list with every quantity in canonical form. */
export function canonicalResourceList(value: unknown): unknown {
  if (!isJsonObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([name, quantity]) => [name, canonicalQuantity(quantity)]));
}

/** The top-level fields of two objects that differ, for naming them in an immutability message. */
export function differingFields(a: unknown, b: unknown, prefix: string): string[] {
  const left = isJsonObject(a) ? a : {};
  const right = isJsonObject(b) ? b : {};
  const fields = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
  return fields.filter((field) => !semanticEqual(left[field], right[field])).map((field) => `${prefix}.${field}`);
}
