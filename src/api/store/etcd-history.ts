/**
 * The etcd backend's recent history, fed by its watch of the whole key space: the events of every
 * revision after `start`, in order, so a watch can start from a past revision without a round
 * trip (kube-apiserver's watch cache plays this part). A revision normally holds one event; a
 * transaction written by another etcd client may hold several, which stay together.
 */
import type { BackendEvent } from "./backend.ts";

export class EtcdHistory {
  /**
   * The held events are `events[head..]`. Dropping moves `head` and clears the dropped slots; the
   * array is cut only once most of it is dropped, so a write that drops one old event costs O(1)
   * rather than a copy of the whole history.
   */
  private events: (BackendEvent | undefined)[] = [];
  private head = 0;
  /** Events with revision <= this are not held. */
  private startRevision: number;

  constructor(startRevision: number) {
    this.startRevision = startRevision;
  }

  get start(): number {
    return this.startRevision;
  }

  append(events: readonly BackendEvent[]): void {
    this.events.push(...events);
  }

  /** Forgets events up to and including `revision`. */
  dropThrough(revision: number): void {
    if (revision <= this.startRevision) return;
    this.startRevision = revision;
    const keepFrom = this.indexAfter(revision);
    for (let i = this.head; i < keepFrom; i++) this.events[i] = undefined;
    this.head = keepFrom;
    if (this.head > this.events.length / 2) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }

  /** Held events after `revision` whose key starts with `prefix`, oldest first. */
  after(revision: number, prefix: string): BackendEvent[] {
    const found: BackendEvent[] = [];
    for (let i = this.indexAfter(revision); i < this.events.length; i++) {
      const event = this.events[i] as BackendEvent;
      if (event.key.startsWith(prefix)) found.push(event);
    }
    return found;
  }

  /** The index of the first event with a revision greater than `revision` (binary search). */
  private indexAfter(revision: number): number {
    let low = this.head;
    let high = this.events.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.events[middle] as BackendEvent).revision <= revision) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
