/**
 * Field sets computed from objects, guided by the schema, as structured-merge-diff computes them:
 * - `appliedFieldSet`: what an applied configuration sets — its scalars, atomic values, empty
 *   maps and lists, the elements of keyed lists and sets (with their fields), never a granular
 *   map or struct on its own;
 * - `compareObjects`: what changed between two versions — added subtrees (the new node and
 *   everything below it), modified values, removed subtrees. Update managers own what they add
 *   and modify, and every manager loses what is removed.
 */
import { jsonEqual } from "../store/json-equal.ts";
import { elementPath } from "./element-paths.ts";
import { type FieldPath, FieldSet, fieldElement, type PathElement } from "./field-set.ts";
import {
  childSchema,
  isAtomicObject,
  itemSchema,
  type ListSemantics,
  listSemanticsOf,
  type PatchSchemaNode,
} from "./patch-schema.ts";

interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The list's elements by their path element; undefined when some element cannot be addressed (then the list is atomic). */
function elementsByPath(
  list: readonly unknown[],
  semantics: ListSemantics,
  item: PatchSchemaNode | undefined,
): Map<PathElement, unknown> | undefined {
  if (semantics.kind === "atomic") return undefined;
  const byPath = new Map<PathElement, unknown>();
  for (const element of list) {
    const path = elementPath(element, semantics, item);
    if (path === undefined) return undefined;
    byPath.set(path, element);
  }
  return byPath;
}

export function appliedFieldSet(object: Record<string, unknown>, schema: PatchSchemaNode | undefined): FieldSet {
  const set = new FieldSet();
  for (const [name, value] of Object.entries(object)) {
    if (value !== undefined) walkApplied(value, childSchema(schema, name), [fieldElement(name)], set);
  }
  return set;
}

function walkApplied(value: unknown, schema: PatchSchemaNode | undefined, path: FieldPath, set: FieldSet): void {
  if (isMap(value)) {
    const entries = Object.entries(value).filter(([, child]) => child !== undefined);
    if (isAtomicObject(schema) || entries.length === 0) {
      set.insert(path);
      return;
    }
    for (const [name, child] of entries)
      walkApplied(child, childSchema(schema, name), [...path, fieldElement(name)], set);
    return;
  }
  if (!Array.isArray(value)) {
    set.insert(path);
    return;
  }
  const semantics = listSemanticsOf(schema);
  const item = itemSchema(schema);
  const elements = elementsByPath(value, semantics, item);
  if (elements === undefined || elements.size === 0) {
    set.insert(path);
    return;
  }
  for (const [element, child] of elements) {
    const elementAt = [...path, element];
    set.insert(elementAt);
    if (semantics.kind === "map" && isMap(child) && !isAtomicObject(item)) {
      for (const [name, field] of Object.entries(child)) {
        if (field !== undefined) walkApplied(field, childSchema(item, name), [...elementAt, fieldElement(name)], set);
      }
    }
  }
}

/**
 * Inserts `node`'s own path (unless it is the root) and every node below it, as Kubernetes records
 * a subtree an update added or removed. It builds below `node` directly, with no path per field.
 */
function insertSubtree(value: unknown, schema: PatchSchemaNode | undefined, node: FieldSet, atRoot: boolean): void {
  if (!atRoot) node.markMember();
  if (isMap(value)) {
    if (isAtomicObject(schema) && !atRoot) return;
    for (const name in value) {
      const child = value[name];
      if (child !== undefined) insertSubtree(child, childSchema(schema, name), node.child(fieldElement(name)), false);
    }
    return;
  }
  if (!Array.isArray(value)) return;
  const semantics = listSemanticsOf(schema);
  const item = itemSchema(schema);
  const elements = elementsByPath(value, semantics, item);
  if (elements === undefined) return;
  for (const [element, child] of elements) {
    if (semantics.kind === "set") node.child(element).markMember();
    else insertSubtree(child, item, node.child(element), false);
  }
}

export function compareObjects(before: unknown, after: unknown, schema: PatchSchemaNode | undefined): Comparison {
  const comparison: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareValue(before, after, schema, [], comparison);
  return comparison;
}

/** `path` is the walk's own stack (pushed and popped around each child), never kept. */
function compareValue(
  before: unknown,
  after: unknown,
  schema: PatchSchemaNode | undefined,
  path: PathElement[],
  comparison: Comparison,
): void {
  if (before === undefined && after === undefined) return;
  if (before === undefined) {
    insertSubtree(after, schema, comparison.added.nodeFor(path), path.length === 0);
    return;
  }
  if (after === undefined) {
    insertSubtree(before, schema, comparison.removed.nodeFor(path), path.length === 0);
    return;
  }
  if (isMap(before) && isMap(after) && (path.length === 0 || !isAtomicObject(schema))) {
    for (const name in before) compareField(before, after, name, schema, path, comparison);
    for (const name in after)
      if (!Object.hasOwn(before, name)) compareField(before, after, name, schema, path, comparison);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && compareLists(before, after, schema, path, comparison)) return;
  if (!jsonEqual(before, after) && path.length > 0) comparison.modified.insert(path);
}

function compareField(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  name: string,
  schema: PatchSchemaNode | undefined,
  path: PathElement[],
  comparison: Comparison,
): void {
  path.push(fieldElement(name));
  compareValue(before[name], after[name], childSchema(schema, name), path, comparison);
  path.pop();
}

/** Compares keyed lists and sets element by element; false when the list is atomic. */
function compareLists(
  before: readonly unknown[],
  after: readonly unknown[],
  schema: PatchSchemaNode | undefined,
  path: FieldPath,
  comparison: Comparison,
): boolean {
  const semantics = listSemanticsOf(schema);
  const item = itemSchema(schema);
  const old = elementsByPath(before, semantics, item);
  const next = elementsByPath(after, semantics, item);
  if (old === undefined || next === undefined) return false;
  for (const element of new Set([...old.keys(), ...next.keys()])) {
    const elementAt = [...path, element];
    const was = old.get(element);
    const is = next.get(element);
    if (semantics.kind === "set") {
      if (!old.has(element)) comparison.added.insert(elementAt);
      else if (!next.has(element)) comparison.removed.insert(elementAt);
      continue;
    }
    if (isAtomicObject(item) && was !== undefined && is !== undefined) {
      if (!jsonEqual(was, is)) comparison.modified.insert(elementAt);
      continue;
    }
    compareValue(was, is, item, elementAt, comparison);
  }
  return true;
}
