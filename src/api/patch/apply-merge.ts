/**
 * The two object edits of server-side apply: merging an applied configuration into the live
 * object (maps and structs field by field, keyed lists element by element, sets as a union,
 * everything atomic replaced), and removing a field the applier gave up.
 */
import { setOwnField } from "../own-field.ts";
import { elementPath } from "./element-paths.ts";
import type { FieldPath } from "./field-set.ts";
import { childSchema, isAtomicObject, itemSchema, listSemanticsOf, type PatchSchemaNode } from "./patch-schema.ts";

type JsonMap = Record<string, unknown>;

function isMap(value: unknown): value is JsonMap {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `config` merged into `live`; neither is changed. */
export function mergeApplied(live: unknown, config: unknown, schema: PatchSchemaNode | undefined): unknown {
  if (config === undefined) return live;
  if (isMap(config) && isMap(live) && !isAtomicObject(schema)) {
    const result: JsonMap = { ...live };
    for (const [name, value] of Object.entries(config)) {
      if (value !== undefined) setOwnField(result, name, mergeApplied(live[name], value, childSchema(schema, name)));
    }
    return result;
  }
  if (Array.isArray(config) && Array.isArray(live)) return mergeList(live, config, schema);
  return config;
}

function mergeList(live: readonly unknown[], config: readonly unknown[], schema: PatchSchemaNode | undefined): unknown {
  const semantics = listSemanticsOf(schema);
  if (semantics.kind === "atomic") return config;
  const item = itemSchema(schema);
  const result = [...live];
  const positions = new Map<string, number>();
  for (const [index, element] of live.entries()) {
    const path = elementPath(element, semantics, item);
    if (path === undefined) return config;
    positions.set(path, index);
  }
  for (const element of config) {
    const path = elementPath(element, semantics, item);
    if (path === undefined) return config;
    const index = positions.get(path);
    if (index === undefined) {
      positions.set(path, result.length);
      result.push(element);
    } else if (semantics.kind === "map") {
      result[index] = mergeApplied(result[index], element, item);
    }
  }
  return result;
}

const removed = Symbol("removed");

/**
 * `object` without the field at `path`. A map or list left empty by the removal goes too, as the
 * typed objects of Kubernetes drop empty optional maps and lists when they are written.
 */
export function removeField(object: JsonMap, path: FieldPath, schema: PatchSchemaNode | undefined): JsonMap {
  const result = removeAt(object, path, schema);
  return result === removed || !isMap(result) ? {} : result;
}

function removeAt(value: unknown, path: FieldPath, schema: PatchSchemaNode | undefined): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return removed;
  if (isMap(value) && head.startsWith("f:")) {
    const name = head.slice(2);
    if (!Object.hasOwn(value, name)) return value;
    const child = removeAt(value[name], rest, childSchema(schema, name));
    const result: JsonMap = { ...value };
    if (child === removed) delete result[name];
    else setOwnField(result, name, child);
    return Object.keys(result).length === 0 ? removed : result;
  }
  if (!Array.isArray(value)) return value;
  const semantics = listSemanticsOf(schema);
  const item = itemSchema(schema);
  const index = value.findIndex((element) => elementPath(element, semantics, item) === head);
  if (index < 0) return value;
  const child = removeAt(value[index], rest, item);
  const result = [...value];
  if (child === removed) result.splice(index, 1);
  else result[index] = child;
  return result.length === 0 ? removed : result;
}
