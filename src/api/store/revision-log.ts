/**
 * The memory backend's history: one event per revision, contiguous from the compacted revision
 * to the latest, so the event of revision r sits at a computed index. Dropping the oldest events
 * is O(1) amortised (a start offset, with an occasional copy to release memory).
 */
import type { BackendEvent } from "./backend.ts";

/** The dropped head is released once it is at least this long and half the array. */
const minDroppedEventsBeforeCopy = 4096;

export class RevisionLog {
  private events: BackendEvent[] = [];
  private head = 0;
  /** Events with revision <= this are gone. */
  private compactedRevision: number;

  constructor(compactedRevision = 0) {
    this.compactedRevision = compactedRevision;
  }

  get compacted(): number {
    return this.compactedRevision;
  }

  get length(): number {
    return this.events.length - this.head;
  }

  /** Appends the next revision's event. */
  append(event: BackendEvent): void {
    const expected = this.compactedRevision + this.length + 1;
    if (event.revision !== expected) {
      throw new Error(`revision log: expected revision ${expected}, got ${event.revision}`);
    }
    this.events.push(event);
  }

  /** Forgets events up to and including `revision`. */
  compact(revision: number): void {
    const newest = this.compactedRevision + this.length;
    const target = Math.min(revision, newest);
    if (target <= this.compactedRevision) return;
    this.head += target - this.compactedRevision;
    this.compactedRevision = target;
    if (this.head >= minDroppedEventsBeforeCopy && this.head * 2 >= this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }

  /** Events after `revision` (which must be >= the compacted revision) whose key starts with `prefix`, oldest first. */
  after(revision: number, prefix: string): BackendEvent[] {
    const found: BackendEvent[] = [];
    for (let i = this.head + (revision - this.compactedRevision); i < this.events.length; i++) {
      const event = this.events[i] as BackendEvent;
      if (event.key.startsWith(prefix)) found.push(event);
    }
    return found;
  }
}
