/**
 * Setting a field of a JSON object whose key comes from data. `record[key] = value` with the key
 * `__proto__` does not add a field: it calls Object.prototype's setter and changes (or, for a
 * string, silently ignores) the prototype, so a label, annotation or ConfigMap key named
 * `__proto__` would vanish. JSON.parse, object spread and Object.fromEntries define own fields and
 * keep it; every copy and merge of API data must do the same, through this function.
 */

const prototypeKey = "__proto__";

/** `record[key] = value` as an own, enumerable data field, whatever the key. */
export function setOwnField(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === prototypeKey) {
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    record[key] = value;
  }
}
