/**
 * Defensive readers for manifest fields. Objects reach validation straight from users' YAML, so a
 * field can hold any JSON type; each reader returns the value when it has the expected type,
 * `undefined` when it is absent (JSON null counts as absent, as in Kubernetes), and records a
 * type problem otherwise — never a crash further down.
 */

import type { FieldCause } from "../errors.ts";
import { setOwnField } from "../own-field.ts";
import { typeInvalid } from "./field-errors.ts";
import { index, key } from "./field-path.ts";

export type JsonObject = Readonly<Record<string, unknown>>;

/** An element of a list of objects, with its position and path. */
export interface ListEntry {
  readonly position: number;
  readonly path: string;
  readonly value: JsonObject;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isAbsent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

export function readObject(value: unknown, path: string, out: FieldCause[]): JsonObject | undefined {
  if (isAbsent(value)) return undefined;
  if (isJsonObject(value)) return value;
  out.push(typeInvalid(path, value, "object"));
  return undefined;
}

export function readArray(value: unknown, path: string, out: FieldCause[]): readonly unknown[] | undefined {
  if (isAbsent(value)) return undefined;
  if (Array.isArray(value)) return value;
  out.push(typeInvalid(path, value, "array"));
  return undefined;
}

export function readString(value: unknown, path: string, out: FieldCause[]): string | undefined {
  if (isAbsent(value)) return undefined;
  if (typeof value === "string") return value;
  out.push(typeInvalid(path, value, "string"));
  return undefined;
}

export function readInteger(value: unknown, path: string, out: FieldCause[]): number | undefined {
  if (isAbsent(value)) return undefined;
  if (typeof value === "number" && Number.isInteger(value)) return value;
  out.push(typeInvalid(path, value, "integer"));
  return undefined;
}

export function readBoolean(value: unknown, path: string, out: FieldCause[]): boolean | undefined {
  if (isAbsent(value)) return undefined;
  if (typeof value === "boolean") return value;
  out.push(typeInvalid(path, value, "boolean"));
  return undefined;
}

/** An int-or-string field (maxSurge, maxUnavailable). */
export function readIntOrString(value: unknown, path: string, out: FieldCause[]): number | string | undefined {
  if (isAbsent(value)) return undefined;
  if (typeof value === "string" || (typeof value === "number" && Number.isInteger(value))) return value;
  out.push(typeInvalid(path, value, "string"));
  return undefined;
}

/** A map of strings (labels, annotations, parameters); entries of another type are reported and left out. */
export function readStringMap(
  value: unknown,
  path: string,
  out: FieldCause[],
): Readonly<Record<string, string>> | undefined {
  const object = readObject(value, path, out);
  if (object === undefined) return undefined;
  // The usual map holds strings only: it is its own answer, with no copy and no entry paths built.
  if (onlyStringValues(object)) return object as Readonly<Record<string, string>>;
  const map: Record<string, string> = {};
  for (const [mapKey, entry] of Object.entries(object)) {
    const text = readString(entry, key(path, mapKey), out);
    if (text !== undefined) setOwnField(map, mapKey, text);
  }
  return map;
}

function onlyStrings(list: readonly unknown[]): boolean {
  for (const element of list) if (typeof element !== "string") return false;
  return true;
}

function onlyStringValues(object: JsonObject): boolean {
  for (const mapKey in object) if (typeof object[mapKey] !== "string") return false;
  return true;
}

/** A list of strings; elements of another type are reported and left out. */
export function readStringList(value: unknown, path: string, out: FieldCause[]): readonly string[] | undefined {
  const list = readArray(value, path, out);
  if (list === undefined) return undefined;
  // The usual list holds strings only: it is its own answer, with no copy and no element paths built.
  if (onlyStrings(list)) return list as readonly string[];
  const strings: string[] = [];
  list.forEach((element, position) => {
    const text = readString(element, index(path, position), out);
    if (text !== undefined) strings.push(text);
  });
  return strings;
}

/** A list of objects, each with its original position; elements that are not objects are reported. */
export function readObjectList(value: unknown, path: string, out: FieldCause[]): readonly ListEntry[] {
  const list = readArray(value, path, out);
  if (list === undefined) return [];
  const entries: ListEntry[] = [];
  list.forEach((element, position) => {
    const elementPath = index(path, position);
    // A null element decodes to an empty object in Kubernetes, so its required fields get reported.
    const object = element === null ? {} : readObject(element, elementPath, out);
    if (object !== undefined) entries.push({ position, path: elementPath, value: object });
  });
  return entries;
}

/** The raw length of a list field, whatever its elements (0 when absent or not a list). */
export function listLength(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}
