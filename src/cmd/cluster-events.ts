/**
 * Picking and ordering Events for `cluster.events(filter)`: by the object they are about, reason
 * and type, in the order they were first recorded. An Event's name is `<object>.<nanoseconds in
 * hex>` of its first occurrence, which orders Events even within one second.
 */
import type { Event } from "../api/objects.ts";

export interface EventFilter {
  /** The involved object's kind (`Pod`, `StatefulSet`). */
  kind?: string;
  namespace?: string;
  /** The involved object's name. */
  name?: string;
  reason?: string;
  type?: "Normal" | "Warning";
}

export function matchesEventFilter(event: Event, filter: EventFilter): boolean {
  const involved = event.involvedObject;
  return (
    (filter.kind === undefined || involved.kind === filter.kind) &&
    (filter.namespace === undefined || involved.namespace === filter.namespace) &&
    (filter.name === undefined || involved.name === filter.name) &&
    (filter.reason === undefined || event.reason === filter.reason) &&
    (filter.type === undefined || event.type === filter.type)
  );
}

/** The first-occurrence time in nanoseconds, from the name's hex suffix; -1 when the name has none. */
function firstRecordedNanoseconds(event: Event): bigint {
  const name = event.metadata?.name ?? "";
  const suffix = name.slice(name.lastIndexOf(".") + 1);
  return /^[0-9a-f]+$/.test(suffix) ? BigInt(`0x${suffix}`) : -1n;
}

export function compareEvents(a: Event, b: Event): number {
  const timeA = firstRecordedNanoseconds(a);
  const timeB = firstRecordedNanoseconds(b);
  if (timeA !== timeB) return timeA < timeB ? -1 : 1;
  const nameA = a.metadata?.name ?? "";
  const nameB = b.metadata?.name ?? "";
  return nameA < nameB ? -1 : nameA > nameB ? 1 : 0;
}
