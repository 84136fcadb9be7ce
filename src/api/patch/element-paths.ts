/**
 * How one list element is addressed in a field path: by its key fields in a list-map
 * (`k:{"name":"web"}`), by its value in a set (`v:"a"`). Server-side apply, the field sets and
 * pruning must agree on this, so it lives in one place.
 */
import { setOwnField } from "../own-field.ts";
import { keyElement, type PathElement, valueElement } from "./field-set.ts";
import { childSchema, type ListSemantics, type PatchSchemaNode } from "./patch-schema.ts";

/**
 * Key fields Kubernetes defaults before it compares elements: an applied port without `protocol`
 * is the stored port with protocol TCP (the OpenAPI `default` structured-merge-diff reads).
 */
const listMapKeyDefaults: Readonly<Record<string, unknown>> = { protocol: "TCP" };

function isMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The key fields of a list-map element, defaults filled in; undefined when the element has none of them. */
function elementKeys(
  element: unknown,
  keys: readonly string[],
  item: PatchSchemaNode | undefined,
): Record<string, unknown> | undefined {
  if (!isMap(element)) return undefined;
  const values: Record<string, unknown> = {};
  for (const key of keys) {
    const value = element[key] ?? childSchema(item, key)?.default ?? listMapKeyDefaults[key];
    if (value !== undefined) setOwnField(values, key, value);
  }
  return Object.keys(values).length === 0 ? undefined : values;
}

/** The path element of a list element, or undefined for an atomic list (whose elements are not addressed). */
export function elementPath(
  element: unknown,
  semantics: ListSemantics,
  item: PatchSchemaNode | undefined,
): PathElement | undefined {
  if (semantics.kind === "set") return valueElement(element);
  if (semantics.kind === "atomic") return undefined;
  const keys = elementKeys(element, semantics.keys, item);
  return keys === undefined ? undefined : keyElement(keys);
}
