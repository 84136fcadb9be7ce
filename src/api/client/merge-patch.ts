import { setOwnField } from "../own-field.ts";
import { jsonEqual } from "../store/json-equal.ts";
/**
 * JSON Merge Patch (RFC 7386), the `application/merge-patch+json` patch type of the Kubernetes API:
 * an object in the patch merges into the target key by key, `null` removes a key, and anything else
 * (a string, a number, an array) replaces the target value whole. Arrays are never merged.
 *
 * JavaScript has `undefined`, JSON does not: a patch key whose value is `undefined` is ignored, as
 * `JSON.stringify` would drop it.
 */

/**
 * A typed merge patch for `T`: every field optional, `null` to remove it, arrays replaced whole.
 * Keeps patches written in code checked against the object's shape.
 */
export type MergePatch<T> = T extends readonly unknown[]
  ? T | null
  : T extends object
    ? { -readonly [K in keyof T]?: MergePatch<T[K]> | null }
    : T | null;

type JsonObject = Record<string, unknown>;

function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Returns `target` with `patch` applied. Neither argument is changed: the result is a new object
 * that shares every subtree the patch did not touch with `target` (cheap on frozen objects).
 */
export function applyMergePatch<T>(target: T, patch: MergePatch<T> | JsonObject): T {
  return mergeValue(target, patch) as T;
}

function mergeValue(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const base = isJsonObject(target) ? target : {};
  const result: JsonObject = { ...base };
  for (const [name, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete result[name];
    else setOwnField(result, name, mergeValue(base[name], value));
  }
  return result;
}

/**
 * The merge patch that turns `original` into `modified` (what `kubectl` and client-go's
 * `CreateMergePatch` compute): changed keys with their new value, removed keys as `null`, arrays
 * that differ in any way whole. Returns `{}` when the two are equal.
 */
export function createMergePatch(original: unknown, modified: unknown): JsonObject {
  if (!isJsonObject(original) || !isJsonObject(modified)) {
    throw new TypeError("createMergePatch: both the original and the modified value must be JSON objects");
  }
  return diffObjects(original, modified);
}

function diffObjects(original: JsonObject, modified: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const [name, before] of Object.entries(original)) {
    if (before !== undefined && modified[name] === undefined) setOwnField(patch, name, null);
  }
  for (const [name, after] of Object.entries(modified)) {
    if (after === undefined) continue;
    const before = original[name];
    if (isJsonObject(before) && isJsonObject(after)) {
      const nested = diffObjects(before, after);
      if (Object.keys(nested).length > 0) setOwnField(patch, name, nested);
    } else if (!jsonEqual(before, after)) {
      setOwnField(patch, name, after);
    }
  }
  return patch;
}

/**
 * True when `a` and `b` serialise to the same JSON text: equal values with their fields in the same
 * order. A writer that finds a stored part identical to the one it built can write the stored
 * (frozen, shared) part instead and store exactly the same bytes. A field set to `undefined` on
 * one side only counts as a difference (conservative: the answer is never wrongly yes).
 */
export function sameJsonText(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!sameJsonText(a[index], b[index])) return false;
    return true;
  }
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  for (let index = 0; index < aKeys.length; index++) {
    const key = aKeys[index] as string;
    if (key !== bKeys[index] || !sameJsonText((a as JsonObject)[key], (b as JsonObject)[key])) return false;
  }
  return true;
}
