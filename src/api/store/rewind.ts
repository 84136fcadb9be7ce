/**
 * Reading the past: the entries under a key range as of an old revision, from the entries as they
 * are now and the revision log since then. Each logged event is undone, newest first: a create
 * removes the key, an update or a delete puts the previous version back. Shared by the backends
 * that keep their own history (memory, SQLite).
 */
import type { BackendEntry, BackendEvent } from "./backend.ts";

function previousEntry(event: BackendEvent): BackendEntry | undefined {
  const previous = event.previous;
  if (previous === undefined) return undefined;
  return {
    key: event.key,
    object: previous,
    createRevision: event.createRevision,
    modRevision: Number(previous.metadata?.resourceVersion),
  };
}

/**
 * `current`: the entries in the range now, in key order. `newestFirst`: every event in the range
 * after the wanted revision, newest first. Returns the entries in the range at that revision, in
 * key order.
 */
export function rewindEntries(current: readonly BackendEntry[], newestFirst: readonly BackendEvent[]): BackendEntry[] {
  if (newestFirst.length === 0) return [...current];
  const before = new Map<string, BackendEntry | undefined>();
  for (const event of newestFirst) before.set(event.key, previousEntry(event));
  const rewound: BackendEntry[] = [];
  for (const entry of current) {
    if (!before.has(entry.key)) rewound.push(entry);
  }
  for (const entry of before.values()) if (entry !== undefined) rewound.push(entry);
  return rewound.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
