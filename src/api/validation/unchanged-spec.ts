/**
 * Whether an update carries parts of the stored object unchanged. The stored object is frozen and
 * was validated on its way in by the same rules, so an unchanged part would find exactly what it
 * found then (nothing), and an immutability rule comparing it with itself finds no change:
 * checking it again is work without a possible finding. kube-apiserver's status strategies do not
 * look at the spec either. Controllers write a deep copy of their cached object with one field
 * changed (Kubernetes' `DeepCopy` then set), so "unchanged" means the same JSON value, not only
 * the same reference, which a client that spreads a cached object gives.
 */

/**
 * `value` is the same JSON data as `stored`: the same fields (a field set to undefined counts, as
 * it would for a validator that lists fields), each with the same value. Shared frozen subtrees
 * compare at once by reference.
 */
export function sameJsonValue(value: unknown, stored: unknown): boolean {
  if (value === stored) return true;
  if (typeof value !== "object" || typeof stored !== "object" || value === null || stored === null) return false;
  if (Array.isArray(value)) {
    if (!Array.isArray(stored) || value.length !== stored.length) return false;
    for (let i = 0; i < value.length; i++) if (!sameJsonValue(value[i], stored[i])) return false;
    return true;
  }
  if (Array.isArray(stored)) return false;
  const fields = value as Readonly<Record<string, unknown>>;
  const storedFields = stored as Readonly<Record<string, unknown>>;
  let count = 0;
  for (const key in fields) {
    if (!Object.hasOwn(storedFields, key) || !sameJsonValue(fields[key], storedFields[key])) return false;
    count++;
  }
  for (const _key in storedFields) count--;
  return count === 0;
}

function isStoredObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.isFrozen(value);
}

/** Whether an update's spec is the stored object's spec unchanged (`oldObject` is the stored, frozen object). */
export function specUnchanged(newObject: { spec?: unknown }, oldObject: { spec?: unknown }): boolean {
  return isStoredObject(oldObject.spec) && sameJsonValue(newObject.spec, oldObject.spec);
}

/**
 * Whether an update's spec is the stored spec with at most `field` changed, every other field
 * unchanged (a controller setting one field, such as a bind).
 */
export function specUnchangedBut(newObject: { spec?: unknown }, oldObject: { spec?: unknown }, field: string): boolean {
  const spec = newObject.spec;
  const old = oldObject.spec;
  if (!isStoredObject(old) || typeof spec !== "object" || spec === null || Array.isArray(spec)) return false;
  const fields = spec as Readonly<Record<string, unknown>>;
  for (const key in fields) {
    if (key !== field && (!Object.hasOwn(old, key) || !sameJsonValue(fields[key], old[key]))) return false;
  }
  for (const key in old) if (key !== field && !Object.hasOwn(fields, key)) return false;
  return true;
}
