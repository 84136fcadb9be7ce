/** Small copy-on-write helpers for defaulting: fill missing fields without touching the input. */

export type Fields = Record<string, unknown>;

export function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `record` with every key of `defaults` that is undefined in it set; the same record when none is missing. */
export function fillMissing<T extends Fields>(record: T, defaults: Fields): T {
  let copy: Fields | undefined;
  for (const key in defaults) {
    if (record[key] !== undefined) continue;
    // Object.assign, not a spread: V8 makes adding keys to a spread copy about ten times slower,
    // and this runs for every pod spec and container written.
    copy ??= Object.assign({}, record);
    copy[key] = defaults[key];
  }
  return (copy ?? record) as T;
}

/** Maps each record of `items` (leaving non-records alone); the same array when nothing changed. */
function mapRecords(items: unknown, fn: (item: Fields) => Fields): unknown {
  if (!Array.isArray(items)) return items;
  let changed = false;
  const mapped = items.map((item) => {
    if (!isRecord(item)) return item;
    const next = fn(item);
    if (next !== item) changed = true;
    return next;
  });
  return changed ? mapped : items;
}

/** `record` with `record[key]` replaced by `fn(record[key])` when that is a record and fn changed it. */
export function updateField(record: Fields, key: string, fn: (value: Fields) => unknown): Fields {
  const value = record[key];
  if (!isRecord(value)) return record;
  const next = fn(value);
  return next === value ? record : { ...record, [key]: next };
}

/** Like updateField, for a value that may be any JSON (arrays of records). */
export function updateList(record: Fields, key: string, fn: (item: Fields) => Fields): Fields {
  const value = record[key];
  const next = mapRecords(value, fn);
  return next === value ? record : { ...record, [key]: next };
}
