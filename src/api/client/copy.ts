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
