import { setOwnField } from "../own-field.ts";
/**
 * Copies of API objects. Everything a Client, an informer cache or a lister hands out is deeply
 * frozen and shared by every reader (one copy of each object version in memory), so a caller that
 * wants to change an object copies it first, exactly as client-go requires (`obj.DeepCopy()`).
 */

/** `T` with its top-level `readonly` markers removed (kubernetes-types marks `status` readonly). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A deep, unfrozen copy of JSON data (objects, arrays, strings, numbers, booleans, null).
 * API objects are JSON by definition, so this is cheaper than `structuredClone` and keeps plain
 * prototypes. A value that is not JSON (a Map, a Date, a function) is a bug at the caller and throws.
 */
export function clone<T>(value: T): Mutable<T> {
  try {
    return copyJson(value) as Mutable<T>;
  } catch (error) {
    if (!(error instanceof NotJsonData)) throw error;
    throw new TypeError(`clone: ${error.pathText() || "the value"} is ${error.what}, which is not JSON data`);
  }
}

/**
 * Thrown while copying; collects the path to the offending value on the way out, so a copy that
 * succeeds (every mutate) builds no path strings.
 */
class NotJsonData extends Error {
  readonly what: string;
  private readonly segments: (string | number)[] = [];
  constructor(what: string) {
    super(what);
    this.what = what;
  }

  prepend(segment: string | number): void {
    this.segments.unshift(segment);
  }

  /** `metadata.labels`, `items[0].name`: field names joined by dots, list positions in brackets. */
  pathText(): string {
    let text = "";
    for (const segment of this.segments) {
      if (typeof segment === "number") text += `[${segment}]`;
      else text = text ? `${text}.${segment}` : segment;
    }
    return text;
  }
}

function copyChild(value: unknown, segment: string | number): unknown {
  try {
    return copyJson(value);
  } catch (error) {
    if (error instanceof NotJsonData) error.prepend(segment);
    throw error;
  }
}

function copyJson(value: unknown): unknown {
  if (value === null || typeof value !== "object") {
    if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
      throw new NotJsonData(`a ${typeof value}`);
    }
    return value;
  }
  if (Array.isArray(value)) {
    const items = new Array<unknown>(value.length);
    for (let position = 0; position < value.length; position++) items[position] = copyChild(value[position], position);
    return items;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw new NotJsonData(`a ${value.constructor.name}`);
  // One spread (V8 clones an object's fields far faster than a loop adds them one by one), then each
  // child that is not a primitive replaced by its copy. A spread keeps fields set to undefined, which
  // JSON drops: that rare case is copied field by field. Assigning an own field that exists is safe
  // for any key, `__proto__` included (own-field.ts).
  const copy: Record<string, unknown> = { ...value };
  for (const key in copy) {
    const field = copy[key];
    if (field === undefined) return copyFieldByField(value);
    if (typeof field === "object" ? field !== null : typeof field !== "string") copy[key] = copyChild(field, key);
  }
  return copy;
}

function copyFieldByField(value: object): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) setOwnField(copy, key, copyChild(field, key));
  }
  return copy;
}

/**
 * `draft` (a copy of `stored` that a caller changed) with every part that is still exactly as in
 * `stored` — the same JSON, fields in the same order — replaced by that stored, frozen part, and
 * `stored` itself when nothing differs. Writing the result stores the same bytes, but the store
 * shares the unchanged parts with the previous version instead of copying a whole object for one
 * changed field. `draft` is left as it was: a container with a part to replace is copied, never
 * changed, because the caller may have attached objects of its own (`draft.status = status`) that
 * it keeps using, and those must not end up holding frozen store objects.
 */
export function withStoredParts<T>(draft: T, stored: T): T {
  return storedPartsOf(draft, stored) as T;
}

function storedPartsOf(draft: unknown, stored: unknown): unknown {
  if (draft === stored || draft === null || stored === null) return draft;
  if (typeof draft !== "object" || typeof stored !== "object") return draft;
  if (Array.isArray(draft) !== Array.isArray(stored)) return draft;
  if (Object.isFrozen(draft)) return draft;
  const record = draft as Record<string, unknown>;
  const previous = stored as Record<string, unknown>;
  const fields = Object.keys(record);
  // True while every field so far is the stored one. The stored fields' order is checked once at
  // the end, by walking them, rather than by listing them: this runs for every container of every
  // draft, and a second key list each time was most of what a mutate allocated.
  let same = true;
  // Built only once the container is known to differ and has a part to replace: while every field
  // so far is the stored one, the whole container may still turn out the same and be `stored`.
  let result: Record<string, unknown> | undefined;
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index] as string;
    const value = record[field];
    const stores = Object.hasOwn(previous, field);
    const part = stores ? storedPartsOf(value, previous[field]) : value;
    if (same && (!stores || part !== previous[field])) {
      same = false;
      result = withPartsBefore(record, previous, fields, index);
    }
    if (same || part === value) continue;
    result ??= copyContainer(record);
    // Assigning a field the copy already has is safe for any key, `__proto__` included (own-field.ts).
    result[field] = part;
  }
  if (!same) return result ?? draft;
  // Every field is the stored one: `stored` itself when it has exactly these fields in this order.
  return hasFieldsInOrder(previous, fields)
    ? stored
    : (withPartsBefore(record, previous, fields, fields.length) ?? draft);
}

/** True when the own fields of `object` are exactly `fields`, in that order. */
function hasFieldsInOrder(object: Record<string, unknown>, fields: readonly string[]): boolean {
  let index = 0;
  for (const field in object) {
    if (!Object.hasOwn(object, field)) continue;
    if (field !== fields[index]) return false;
    index++;
  }
  return index === fields.length;
}

/** A copy of `record` whose fields before `end` (each found the same as stored) are the stored ones; undefined when all already are. */
function withPartsBefore(
  record: Record<string, unknown>,
  previous: Record<string, unknown>,
  fields: readonly string[],
  end: number,
): Record<string, unknown> | undefined {
  let result: Record<string, unknown> | undefined;
  for (let index = 0; index < end; index++) {
    const field = fields[index] as string;
    if (record[field] === previous[field]) continue;
    result ??= copyContainer(record);
    result[field] = previous[field];
  }
  return result;
}

/** A shallow copy keeping the field order and a field named `__proto__` as an own field. */
function copyContainer(record: Record<string, unknown>): Record<string, unknown> {
  return Array.isArray(record) ? (record.slice() as unknown as Record<string, unknown>) : { ...record };
}

/**
 * Freezes `value` and everything reachable from it. An already-frozen object is taken to be deeply
 * frozen (everything the store hands out is), so shared subtrees are not walked again.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const field of Object.values(value)) deepFreeze(field);
    Object.freeze(value);
  }
  return value;
}
