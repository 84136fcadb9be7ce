/**
 * Structural equality of JSON data, quick on shared frozen subtrees (same reference ⇒ equal),
 * which is the common case when a write changes one field of a stored object. A field set to
 * `undefined` counts as absent, as JSON.stringify drops it: stored objects have none, but drafts a
 * client builds (and merge patches compares) may.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let leftCount = 0;
  for (const key in left) {
    if (left[key] === undefined) continue;
    leftCount++;
    if (!jsonEqual(left[key], right[key])) return false;
  }
  let rightCount = 0;
  for (const key in right) if (right[key] !== undefined) rightCount++;
  return leftCount === rightCount;
}

/**
 * `jsonEqual` of two objects with one top-level field left out of the comparison (metadata without
 * its resourceVersion, on every update), without building the two copies that leave it out.
 */
export function jsonEqualExceptField(a: object | undefined, b: object | undefined, field: string): boolean {
  // A status write keeps the stored metadata object itself.
  if (a === b) return true;
  const left = (a ?? {}) as Record<string, unknown>;
  const right = (b ?? {}) as Record<string, unknown>;
  let leftCount = 0;
  for (const key in left) {
    if (key === field || left[key] === undefined) continue;
    leftCount++;
    if (!jsonEqual(left[key], right[key])) return false;
  }
  let rightCount = 0;
  for (const key in right) if (key !== field && right[key] !== undefined) rightCount++;
  return leftCount === rightCount;
}
