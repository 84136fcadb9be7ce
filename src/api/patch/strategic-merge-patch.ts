/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), the patch `kubectl apply`
 * (client-side) and `kubectl patch` send, applied as apimachinery's strategicpatch package
 * applies it:
 * - maps merge key by key; `null` removes a key; `{"$patch": "replace"}` replaces the map,
 *   `{"$patch": "delete"}` removes it; `$retainKeys: [...]` drops every key not listed;
 * - lists whose field has patch strategy `merge` merge: elements by their merge key (an element
 *   `{"$patch": "delete", <key>: v}` removes one, an element `{"$patch": "replace"}` makes the
 *   rest of the list replace the whole), scalars as a union; `$deleteFromPrimitiveList/<field>`
 *   removes scalars and `$setElementOrder/<field>` fixes the order of the result;
 * - every other list is replaced whole.
 * Inputs are never changed (stored objects are frozen); the result shares untouched subtrees.
 */

import { ApiError, badRequest } from "../errors.ts";
import { setOwnField } from "../own-field.ts";
import { childSchema, itemSchema, type PatchSchemaNode, patchMergeKeyOf, patchStrategyOf } from "./patch-schema.ts";

type JsonMap = Record<string, unknown>;

const directiveMarker = "$patch";
const retainKeysDirective = "$retainKeys";
const deleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList/";
const setElementOrderPrefix = "$setElementOrder/";

function isMap(value: unknown): value is JsonMap {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function describe(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function at(path: string, field: string): string {
  return path === "" ? field : `${path}.${field}`;
}

/** Applies `patch` to `original` following the merge metadata in `schema`. Throws a 400/422 ApiError on a malformed patch. */
export function applyStrategicMergePatch(
  original: JsonMap,
  patch: JsonMap,
  schema: PatchSchemaNode | undefined,
): JsonMap {
  return mergeMap(original, patch, schema, "") ?? {};
}

/** The merged map, or undefined when the patch deletes the map (`$patch: delete`). */
function mergeMap(
  original: JsonMap,
  patch: JsonMap,
  schema: PatchSchemaNode | undefined,
  path: string,
): JsonMap | undefined {
  const directive = patch[directiveMarker];
  if (directive === "delete") return undefined;
  if (directive === "replace") {
    const { [directiveMarker]: _directive, ...rest } = patch;
    return mergeMap({}, rest, schema, path);
  }
  if (directive !== undefined && directive !== "merge") {
    throw badRequest(
      `unknown patch type: ${describe(directive)} in map at ${path || "the top level"}: ${describe(patch)}`,
    );
  }
  const result: JsonMap = { ...original };
  applyRetainKeys(result, patch, path);
  const consumed = applyListDirectives(result, patch, schema, path);
  for (const [key, value] of Object.entries(patch)) {
    if (consumed.has(key) || key === directiveMarker || key === retainKeysDirective) continue;
    if (key.startsWith("$")) throw badRequest(`unknown directive "${key}" in the patch at ${path || "the top level"}`);
    mergeField(result, key, value, childSchema(schema, key), at(path, key));
  }
  return result;
}

function mergeField(
  result: JsonMap,
  key: string,
  value: unknown,
  schema: PatchSchemaNode | undefined,
  path: string,
): void {
  if (value === undefined) return;
  if (value === null) {
    delete result[key];
    return;
  }
  const merged = mergeValue(result[key], value, schema, path);
  if (merged === undefined) delete result[key];
  else setOwnField(result, key, merged);
}

/** One value of the patch against the original's value at the same place (undefined when absent). */
function mergeValue(original: unknown, patch: unknown, schema: PatchSchemaNode | undefined, path: string): unknown {
  if (isMap(patch)) {
    const base = isMap(original) && patchStrategyOf(schema) !== "replace" ? original : {};
    return mergeMap(base, patch, schema, path);
  }
  if (Array.isArray(patch)) return mergeList(Array.isArray(original) ? original : [], patch, schema, path);
  return patch;
}

/** `$retainKeys`: keys of the original that the list does not name are dropped before merging. */
function applyRetainKeys(result: JsonMap, patch: JsonMap, path: string): void {
  const retain = patch[retainKeysDirective];
  if (retain === undefined) return;
  if (!Array.isArray(retain) || retain.some((key) => typeof key !== "string")) {
    throw badRequest(`invalid patch format of retainKeys at ${path || "the top level"}: ${describe(retain)}`);
  }
  const kept = new Set(retain as string[]);
  for (const [key, value] of Object.entries(patch)) {
    if (!key.startsWith("$") && value !== null && !kept.has(key)) {
      throw new ApiError(
        "Invalid",
        `patch content doesn't match retainKeys list: "${at(path, key)}" is set but $retainKeys is ${describe(retain)}`,
      );
    }
  }
  for (const key of Object.keys(result)) if (!kept.has(key)) delete result[key];
}

/**
 * `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` (with `<field>` itself).
 * Returns the patch keys handled here, which the plain merge must skip.
 */
function applyListDirectives(
  result: JsonMap,
  patch: JsonMap,
  schema: PatchSchemaNode | undefined,
  path: string,
): Set<string> {
  const consumed = new Set<string>();
  for (const [key, value] of Object.entries(patch)) {
    if (!key.startsWith(deleteFromPrimitiveListPrefix)) continue;
    const field = key.slice(deleteFromPrimitiveListPrefix.length);
    consumed.add(key);
    if (!Array.isArray(value)) {
      throw badRequest(
        `invalid patch: ${key} at ${path || "the top level"} must be a list of values, not ${describe(value)}`,
      );
    }
    const current = result[field];
    if (!Array.isArray(current)) continue;
    const doomed = new Set(value.map((item) => describe(item)));
    const kept = current.filter((item) => !doomed.has(describe(item)));
    if (kept.length === 0) delete result[field];
    else setOwnField(result, field, kept);
  }
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(setElementOrderPrefix)) continue;
    const field = key.slice(setElementOrderPrefix.length);
    consumed.add(key);
    consumed.add(field);
    const fieldPath = at(path, field);
    if (!Array.isArray(order)) throw badRequest(`invalid patch: ${key} at ${fieldPath} must be a list`);
    const fieldSchema = childSchema(schema, field);
    const patchList = patch[field];
    if (patchList === null) {
      delete result[field];
      continue;
    }
    if (patchList !== undefined && !Array.isArray(patchList)) {
      throw badRequest(`invalid patch: ${fieldPath} must be a list because $setElementOrder/${field} is set`);
    }
    const current = Array.isArray(result[field]) ? (result[field] as unknown[]) : [];
    const merged = mergeList(current, patchList ?? [], fieldSchema, fieldPath, order);
    if (merged.length === 0) delete result[field];
    else setOwnField(result, field, merged);
  }
  return consumed;
}

function mergeList(
  original: readonly unknown[],
  patch: readonly unknown[],
  schema: PatchSchemaNode | undefined,
  path: string,
  order?: readonly unknown[],
): unknown[] {
  if (patchStrategyOf(schema) !== "merge") {
    return patch
      .map((item) => mergeValue(undefined, item, itemSchema(schema), path))
      .filter((item) => item !== undefined);
  }
  const elementsAreMaps = [...original, ...patch].some(isMap);
  if (!elementsAreMaps) return orderList(union(original, patch), order ?? patch, original, (item) => describe(item));
  const mergeKey = patchMergeKeyOf(schema);
  if (mergeKey === "") throw badRequest(`cannot merge lists without merge key for ${path}`);
  const keyOf = (item: unknown) => describe(isMap(item) ? item[mergeKey] : item);
  const { base, additions, replaced } = applyListElementDirectives(original, patch, mergeKey, path);
  const merged = mergeByKey(base, additions, mergeKey, itemSchema(schema), path);
  if (replaced) return merged;
  return orderList(merged, order ?? additions, original, keyOf);
}

function union(original: readonly unknown[], patch: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  const result: unknown[] = [];
  for (const item of [...original, ...patch]) {
    const id = describe(item);
    if (seen.has(id)) continue;
    seen.add(id);
    result.push(item);
  }
  return result;
}

/** `$patch` elements of a merging list: deletions by merge key, and `replace` for the whole list. */
function applyListElementDirectives(
  original: readonly unknown[],
  patch: readonly unknown[],
  mergeKey: string,
  path: string,
): { base: readonly unknown[]; additions: JsonMap[]; replaced: boolean } {
  let base = original;
  let replaced = false;
  const additions: JsonMap[] = [];
  for (const element of patch) {
    if (!isMap(element)) throw badRequest(`the list ${path} mixes objects and scalars: ${describe(element)}`);
    const directive = element[directiveMarker];
    if (directive === undefined) {
      if (!Object.hasOwn(element, mergeKey)) {
        throw badRequest(`map: ${describe(element)} does not contain declared merge key: ${mergeKey} (in ${path})`);
      }
      additions.push(element);
    } else if (directive === "delete") {
      if (!Object.hasOwn(element, mergeKey)) {
        throw badRequest(`map: ${describe(element)} does not contain declared merge key: ${mergeKey} (in ${path})`);
      }
      const doomed = describe(element[mergeKey]);
      base = base.filter((item) => !isMap(item) || describe(item[mergeKey]) !== doomed);
    } else if (directive === "replace") {
      replaced = true;
    } else if (directive === "merge") {
      throw badRequest(`merging lists cannot yet be specified in the patch (${path})`);
    } else {
      throw badRequest(`unknown patch type: ${describe(directive)} in list ${path}: ${describe(element)}`);
    }
  }
  return { base: replaced ? [] : base, additions, replaced };
}

function mergeByKey(
  base: readonly unknown[],
  additions: readonly JsonMap[],
  mergeKey: string,
  schema: PatchSchemaNode | undefined,
  path: string,
): unknown[] {
  const merged = [...base];
  for (const element of additions) {
    const key = describe(element[mergeKey]);
    const index = merged.findIndex((item) => isMap(item) && describe(item[mergeKey]) === key);
    const elementPath = `${path}[${mergeKey}=${key}]`;
    if (index < 0) {
      const added = mergeMap({}, element, schema, elementPath);
      if (added !== undefined) merged.push(added);
      continue;
    }
    const updated = mergeMap(merged[index] as JsonMap, element, schema, elementPath);
    if (updated === undefined) merged.splice(index, 1);
    else merged[index] = updated;
  }
  return merged;
}

/**
 * strategicpatch's normalizeElementOrder: the elements the patch order names come in that order;
 * the others (present only on the server) keep their place relative to the server's list.
 */
function orderList(
  merged: readonly unknown[],
  order: readonly unknown[],
  serverOrder: readonly unknown[],
  keyOf: (item: unknown) => string,
): unknown[] {
  const orderIndex = new Map<string, number>();
  order.forEach((item, index) => {
    const key = keyOf(item);
    if (!orderIndex.has(key)) orderIndex.set(key, index);
  });
  const serverIndex = new Map<string, number>();
  for (const [index, item] of serverOrder.entries()) serverIndex.set(keyOf(item), index);
  const named = merged
    .filter((item) => orderIndex.has(keyOf(item)))
    .sort((a, b) => (orderIndex.get(keyOf(a)) ?? 0) - (orderIndex.get(keyOf(b)) ?? 0));
  const serverOnly = merged.filter((item) => !orderIndex.has(keyOf(item)));
  return mergeSorted(serverOnly, named, (item) => serverIndex.get(keyOf(item)));
}

/** Interleaves two ordered lists; a server-only element goes first when the server list had it before the other. */
function mergeSorted(
  serverOnly: readonly unknown[],
  named: readonly unknown[],
  serverPosition: (item: unknown) => number | undefined,
): unknown[] {
  const result: unknown[] = [];
  let left = 0;
  let right = 0;
  while (left < serverOnly.length || right < named.length) {
    if (right >= named.length) result.push(serverOnly[left++]);
    else if (left >= serverOnly.length) result.push(named[right++]);
    else {
      const leftPosition = serverPosition(serverOnly[left]);
      const rightPosition = serverPosition(named[right]);
      const leftFirst = leftPosition !== undefined && rightPosition !== undefined && leftPosition < rightPosition;
      result.push(leftFirst ? serverOnly[left++] : named[right++]);
    }
  }
  return result;
}
