/**
 * The recent changes of every object the invariants may name, so a violation report can show how
 * the objects got where they are: a bounded ring of entries per object (`historyEntriesPerObject`),
 * and a bound on how many objects are followed (`historyObjectsMax`, least recently changed
 * forgotten first). Entries are one line each, with the virtual time they were seen at.
 */
import { formatRfc3339Micro } from "../../runtime/clock.ts";
import { historyEntriesPerObject, historyObjectsMax } from "./constants.ts";

interface HistoryEntry {
  readonly atMs: number;
  /** `Node/node-a`, `PersistentVolume/pv-1`, `disk/disk-1`, `node/node-a`. */
  readonly object: string;
  readonly text: string;
}

/** `2026-01-01T00:00:11.600` is 23 characters. */
const rfc3339MillisecondLength = 23;

export class ObjectHistory {
  /** Map order is recency order: a key is moved to the end whenever it is written. */
  private readonly entriesByObject = new Map<string, HistoryEntry[]>();

  constructor(
    private readonly entriesPerObject = historyEntriesPerObject,
    private readonly objectsMax = historyObjectsMax,
  ) {}

  record(object: string, atMs: number, text: string): void {
    const entries = this.entriesByObject.get(object) ?? [];
    this.entriesByObject.delete(object);
    entries.push({ atMs, object, text });
    if (entries.length > this.entriesPerObject) entries.shift();
    this.entriesByObject.set(object, entries);
    if (this.entriesByObject.size > this.objectsMax) {
      const oldest = this.entriesByObject.keys().next().value;
      if (oldest !== undefined) this.entriesByObject.delete(oldest);
    }
  }

  entriesOf(object: string): readonly HistoryEntry[] {
    return this.entriesByObject.get(object) ?? [];
  }

  /** The entries of all these objects, oldest first (ties keep the order they were recorded in). */
  entriesOfAll(objects: Iterable<string>): HistoryEntry[] {
    const merged: HistoryEntry[] = [];
    for (const object of new Set(objects)) merged.push(...this.entriesOf(object));
    return merged.sort((a, b) => a.atMs - b.atMs);
  }
}

/** `2026-01-01T00:00:11.600Z`: virtual time as reports print it, to the millisecond. */
export function formatVirtualTime(atMs: number): string {
  return `${formatRfc3339Micro(atMs).slice(0, rfc3339MillisecondLength)}Z`;
}

export function formatEntry(entry: HistoryEntry): string {
  return `${formatVirtualTime(entry.atMs)} ${entry.object}: ${entry.text}`;
}
