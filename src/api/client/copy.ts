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
  return copyJson(value, "") as Mutable<T>;
}

function copyJson(value: unknown, path: string): unknown {
  if (value === null || typeof value !== "object") {
    if (typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
      throw new TypeError(`clone: ${path || "the value"} is a ${typeof value}, which is not JSON data`);
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((item, index) => copyJson(item, `${path}[${index}]`));
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new TypeError(`clone: ${path || "the value"} is a ${value.constructor.name}, which is not JSON data`);
  }
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field !== undefined) copy[key] = copyJson(field, path ? `${path}.${key}` : key);
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
