/**
 * client-go's EventCorrelator (`tools/record/events_cache.go`), which keeps repeated events from
 * becoming thousands of objects:
 * - deduplication: an event identical to an earlier one (same source, involved object, type,
 *   reason and message) updates that Event — count + 1, new lastTimestamp — instead of creating one;
 * - aggregation: once `aggregateMaxEvents` events that differ only in message arrive within
 *   `aggregateIntervalMs` of each other, further ones go to a single Event whose message is
 *   `(combined from similar events): <latest message>`;
 * - spam filtering: each source may write `spamBurst` events about an object, then one per
 *   `1 / spamRefillPerSecond` seconds; the rest are dropped.
 *
 * Like client-go, deduplication has no time limit of its own: the memory of an Event lasts until
 * `maxCacheEntries` newer keys push it out (and a patch of an Event that is gone creates it anew).
 */
import type { Event } from "../objects.ts";
import { LruCache } from "./lru-cache.ts";
import { SpamFilter } from "./spam-filter.ts";

/** Entries in each correlator cache (client-go's `maxLruCacheEntries`). */
const maxCacheEntries = 4096;
/** Distinct messages for one reason within the interval before they are combined (`defaultAggregateMaxEvents`). */
export const aggregateMaxEvents = 10;
/** A similar event older than this starts a fresh aggregation (`defaultAggregateIntervalInSeconds` = 600). */
const aggregateIntervalMs = 600_000;
/** Prefix of a combined Event's message (`EventAggregatorByReasonMessageFunc`). */
export const combinedEventMessagePrefix = "(combined from similar events): ";
/** Events one source may write about one object at once (`defaultSpamBurst`). */
export const spamBurst = 25;
/** Refill of that allowance: one event every 5 minutes (`defaultSpamQPS` = 1/300). */
export const spamRefillPerSecond = 1 / 300;

/** The fields an update of a repeated Event changes (client-go sends them as a patch). */
interface EventPatch {
  count: number;
  lastTimestamp: string;
  message: string;
}

export interface CorrelatedEvent {
  /** The Event to write: new (count 1) or, with `patch`, the next state of an existing one. */
  event: Event;
  /** Set when the Event already exists: write this patch to `event.metadata.name`. */
  patch?: EventPatch;
  /** Pass back to `recordWritten` with the stored Event. */
  key: string;
}

interface AggregateRecord {
  /** Messages seen for this (source, object, type, reason); insertion order gives a deterministic eviction. */
  messages: Set<string>;
  lastMs: number;
}

interface Observation {
  count: number;
  firstTimestamp: string | undefined;
  name: string;
}

/** Joins key parts with a character no field contains, so ("ab","c") and ("a","bc") stay apart. */
function joinKey(parts: readonly (string | undefined)[]): string {
  return parts.map((part) => part ?? "").join("\u0000");
}

function involvedObjectParts(event: Event): (string | undefined)[] {
  const ref = event.involvedObject;
  return [event.source?.component, event.source?.host, ref.kind, ref.namespace, ref.name, ref.uid, ref.apiVersion];
}

/** Identical events (client-go's getEventKey). */
function eventKey(event: Event): string {
  return joinKey([
    ...involvedObjectParts(event),
    event.involvedObject.fieldPath,
    event.type,
    event.reason,
    event.message,
  ]);
}

/** Events that differ only in message (EventAggregatorByReasonFunc). */
function aggregateKey(event: Event): string {
  return joinKey([
    ...involvedObjectParts(event),
    event.type,
    event.reason,
    event.reportingComponent,
    event.reportingInstance,
  ]);
}

/** One spam allowance per source and involved object (getSpamKey). */
function spamKey(event: Event): string {
  return joinKey(involvedObjectParts(event));
}

export class EventCorrelator {
  private readonly aggregates = new LruCache<AggregateRecord>(maxCacheEntries);
  private readonly observations = new LruCache<Observation>(maxCacheEntries);
  private readonly spamFilter = new SpamFilter({
    burst: spamBurst,
    refillPerSecond: spamRefillPerSecond,
    maxEntries: maxCacheEntries,
  });

  /**
   * Decides what to write for `event` (a fresh count-1 Event) recorded at `nowMs`; undefined when the
   * spam filter drops it. `newEventName` names a combined Event when aggregation starts one.
   */
  correlate(event: Event, nowMs: number, newEventName: () => string): CorrelatedEvent | undefined {
    const aggregated = this.aggregate(event, nowMs, newEventName);
    const observed = this.observe(aggregated.event, aggregated.key);
    // client-go filters after observing, so a dropped repeat still advances the count the next write shows.
    return this.spamFilter.tryAccept(spamKey(observed.event), nowMs) ? observed : undefined;
  }

  /** Remembers the stored Event (its name may differ from the planned one) for the next repeat. */
  recordWritten(key: string, written: Event): void {
    this.observations.set(key, {
      count: written.count ?? 1,
      firstTimestamp: written.firstTimestamp,
      name: written.metadata.name ?? "",
    });
  }

  /** The name of the Event `key` was last written to, while remembered. */
  storedName(key: string): string | undefined {
    return this.observations.get(key)?.name;
  }

  private aggregate(event: Event, nowMs: number, newEventName: () => string): { event: Event; key: string } {
    const key = aggregateKey(event);
    let record = this.aggregates.get(key);
    if (record === undefined || nowMs - record.lastMs > aggregateIntervalMs) {
      record = { messages: new Set(), lastMs: nowMs };
    }
    record.messages.add(event.message ?? "");
    record.lastMs = nowMs;
    this.aggregates.set(key, record);
    if (record.messages.size < aggregateMaxEvents) return { event, key: eventKey(event) };

    // Keep the message set at its bound; client-go drops an arbitrary one, kvol the oldest (deterministic).
    const oldest = record.messages.values().next();
    if (!oldest.done) record.messages.delete(oldest.value);
    const combined: Event = {
      ...event,
      metadata: { name: newEventName(), namespace: event.metadata.namespace },
      message: `${combinedEventMessagePrefix}${event.message ?? ""}`,
    };
    return { event: combined, key };
  }

  private observe(event: Event, key: string): CorrelatedEvent {
    const last = this.observations.get(key);
    if (last === undefined) {
      this.recordWritten(key, event);
      return { event, key };
    }
    const repeated: Event = {
      ...event,
      metadata: { ...event.metadata, name: last.name },
      firstTimestamp: last.firstTimestamp,
      count: last.count + 1,
    };
    this.recordWritten(key, repeated);
    const patch: EventPatch = {
      count: last.count + 1,
      lastTimestamp: event.lastTimestamp ?? "",
      message: event.message ?? "",
    };
    return { event: repeated, patch, key };
  }
}
