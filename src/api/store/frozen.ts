/**
 * Frozen, shared object versions. Everything a backend stores and hands out is deeply frozen, so
 * every reader (informer caches, listers, watchers) shares one copy of each object version.
 *
 * `frozenCopy` never freezes or changes the caller's objects: it copies what is not frozen yet and
 * shares what is. A frozen object is taken to be deeply frozen (everything the store hands out is),
 * so the usual controller write — a spread of a stored object with one field changed — copies only
 * the path to that field.
 */

import { badRequest } from "../errors.ts";
import type { KObject } from "../objects.ts";
import { type KeyNode, newKeyTrie, nextKeyNode, shapedObject } from "./shaped.ts";

/** Key lists of stored objects' top levels and metadata. */
const sealedShapes = newKeyTrie();
/**
 * Key lists of the objects inside them (spec, status, labels, ...): a trie of its own, so keys
 * from data cannot crowd out the above.
 */
const nestedShapes = newKeyTrie();

/** Thrown while copying; collects the path to the offending value on the way out. */
class NotJsonData extends Error {
  readonly path: string[] = [];
  readonly what: string;
  constructor(what: string) {
    super(what);
    this.what = what;
  }
}

function copyUnfrozen(value: unknown): unknown {
  if (value === null || typeof value !== "object") {
    if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
      throw new NotJsonData(`a ${typeof value}`);
    }
    return value;
  }
  if (Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    const items = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) items[i] = copyChild(value[i], `[${i}]`);
    return Object.freeze(items);
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw new NotJsonData(`a ${value.constructor.name}`);
  return Object.freeze(shapedCopy(value as Record<string, unknown>));
}

/** True for a field value that a copy cannot share as it is: an unfrozen object, or not JSON at all. */
function needsCopy(field: unknown): boolean {
  const type = typeof field;
  if (type === "object") return field !== null && !Object.isFrozen(field);
  return type === "function" || type === "symbol" || type === "bigint";
}

/**
 * Key and value lists for the copies under way, one pair per nesting level, reused from write to
 * write: a copy of each stored object's top level, metadata and every changed part needs two lists,
 * and fresh ones (grown push by push) were garbage on every write. A level's lists are cleared
 * once its object is built, so they keep no key or object alive, and lists grown by an unusually
 * wide object are dropped rather than kept at that size.
 */
const scratchKeys: string[][] = [];
const scratchValues: unknown[][] = [];
let scratchLevel = 0;
/** Lists that held more fields than this are replaced by fresh ones after use. */
const maxKeptScratchFields = 256;

/** Takes the next level's lists; `releaseScratch` gives them back, exceptions included. */
function takeScratch(): number {
  const level = scratchLevel++;
  if (level === scratchKeys.length) {
    scratchKeys.push([]);
    scratchValues.push([]);
  }
  return level;
}

function releaseScratch(level: number, used: number): void {
  scratchLevel = level;
  if (used > maxKeptScratchFields) {
    scratchKeys[level] = [];
    scratchValues[level] = [];
    return;
  }
  (scratchKeys[level] as unknown[]).fill(undefined, 0, used);
  (scratchValues[level] as unknown[]).fill(undefined, 0, used);
}

/**
 * A copy of `source`'s fields, each unfrozen child replaced by its frozen copy and undefined
 * fields dropped, built from one literal (shaped.ts) so all its fields sit inside the object,
 * whatever layout `source` had (a spread of a frozen object keeps only four inside).
 */
function shapedCopy(source: Record<string, unknown>): Record<string, unknown> {
  const level = takeScratch();
  const keys = scratchKeys[level] as string[];
  const values = scratchValues[level] as unknown[];
  let count = 0;
  try {
    let node: KeyNode | undefined = nestedShapes;
    for (const key in source) {
      // for…in also lists enumerable inherited fields, which a spread would not copy.
      if (!Object.hasOwn(source, key)) continue;
      let field = source[key];
      if (field === undefined) continue;
      if (needsCopy(field)) field = copyChild(field, key);
      keys[count] = key;
      values[count] = field;
      count++;
      if (node !== undefined) node = nextKeyNode(node, key);
    }
    return shapedObject(node, keys, values, count);
  } finally {
    releaseScratch(level, count);
  }
}

function copyChild(value: unknown, segment: string): unknown {
  try {
    return copyUnfrozen(value);
  } catch (error) {
    if (error instanceof NotJsonData) error.path.unshift(segment);
    throw error;
  }
}

/** Runs a copy, turning a value that is not JSON data into BadRequest naming where it is. */
function asBadRequest<T>(copy: () => T): T {
  try {
    return copy();
  } catch (error) {
    throw asBadRequestError(error);
  }
}

/** BadRequest naming where the value that is not JSON data is; any other error as it was. */
function asBadRequestError(error: unknown): unknown {
  if (!(error instanceof NotJsonData)) return error;
  const path = error.path.join(".").replaceAll(".[", "[");
  return badRequest(`${path || "the object"} is ${error.what}, which is not JSON data`);
}

/**
 * A deeply frozen copy of JSON data, sharing already-frozen parts. Fields set to undefined are
 * dropped, as JSON would. A value that is not JSON data (a function, a Map, a Date) is BadRequest.
 */
export function frozenCopy<T>(value: T): T {
  return asBadRequest(() => copyUnfrozen(value) as T);
}

/**
 * A frozen copy of `source`'s own fields with `field` set to `value` (in place when `source` has
 * it, last otherwise; an undefined value removes it), as a spread `{ ...source, [field]: value }`
 * then frozenCopy would give, with fields set to undefined dropped and no second walk: stamping
 * happens on every write. Built from one literal (shaped.ts), so every stored object and its
 * metadata hold all their fields inside the object.
 */
function frozenWithField(source: object | undefined, field: string, value: unknown): Record<string, unknown> {
  const fields = (source ?? {}) as Record<string, unknown>;
  const level = takeScratch();
  const keys = scratchKeys[level] as string[];
  const values = scratchValues[level] as unknown[];
  let count = 0;
  try {
    let node: KeyNode | undefined = sealedShapes;
    let placed = false;
    for (const key in fields) {
      if (!Object.hasOwn(fields, key)) continue;
      let current: unknown;
      if (key === field) {
        placed = true;
        current = value;
      } else {
        current = fields[key];
        if (needsCopy(current)) current = copyChild(current, key);
      }
      if (current === undefined) continue;
      keys[count] = key;
      values[count] = current;
      count++;
      if (node !== undefined) node = nextKeyNode(node, key);
    }
    if (!placed && value !== undefined) {
      keys[count] = field;
      values[count] = value;
      count++;
      if (node !== undefined) node = nextKeyNode(node, field);
    }
    return Object.freeze(shapedObject(node, keys, values, count));
  } finally {
    releaseScratch(level, count);
  }
}

/**
 * The stored form of an object written at `revision`: a frozen copy with
 * `metadata.resourceVersion` stamped. The input is left as it was.
 */
export function sealAtRevision<T extends KObject>(object: T, revision: number): T {
  return sealWithResourceVersion(object, String(revision));
}

/**
 * The frozen copy of an object as a backend that keeps revisions outside the object stores it:
 * without `metadata.resourceVersion`, ready to encode as is.
 */
export function sealUnversioned<T extends KObject>(object: T): T {
  return sealWithResourceVersion(object, undefined);
}

// No asBadRequest here: a closure per write for a path that almost never throws.
function sealWithResourceVersion<T extends KObject>(object: T, resourceVersion: string | undefined): T {
  let metadata: Record<string, unknown>;
  try {
    metadata = frozenWithField(object.metadata, "resourceVersion", resourceVersion);
  } catch (error) {
    if (error instanceof NotJsonData) error.path.unshift("metadata");
    throw asBadRequestError(error);
  }
  try {
    return frozenWithField(object, "metadata", metadata) as T;
  } catch (error) {
    throw asBadRequestError(error);
  }
}

/** Deep-freezes freshly parsed JSON in place (nothing else holds it, so no copy is needed). */
export { deepFreeze as freezeParsed } from "../client/copy.ts";
