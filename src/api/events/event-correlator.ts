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
import { KeyBuilder, type KeyPrefix } from "./correlation-key.ts";
import { SlotLru } from "./slot-lru.ts";
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
  key: number;
}

/**
 * Messages seen for one (object, type, reason); insertion order gives a deterministic eviction.
 * One message (nearly every record) is kept as the string alone: a Set per record was most of the
 * correlator's memory.
 */
type AggregateMessages = string | Set<string>;

/**
 * The caches keep their fields in typed-array rows (slot-lru.ts): a kubelet remembers a few entries
 * for every pod it ran, and as objects in a Map they were kilobytes per pod across a large cluster.
 * Aggregate record: when the last similar event came, and its messages.
 */
const aggregateLastMsField = 0;
const aggregateMessagesField = 0;
/** Observation of a written Event: its count, firstTimestamp and stored name. */
const observedCountField = 0;
const observedFirstTimestampField = 0;
const observedNameField = 1;

/**
 * The involved object's part of every key. client-go's keys also start with the event's source
 * (component, host) and the aggregate key ends with the reporting component and instance; a
 * correlator serves one recorder, whose events all carry the same source, so leaving them out keys
 * the same events alike. Keys are hashed (correlation-key.ts): number keys, not long strings, and
 * this common part is hashed once for the event's three keys — and once for consecutive events
 * about one object (a container's Pulled, Created and Started, its pod's events).
 */
class InvolvedObjectPrefix {
  private kind = "";
  private namespace = "";
  private name = "";
  private uid = "";
  private apiVersion = "";
  private prefix: KeyPrefix | undefined;
  /** The spam key (getSpamKey: source and involved object) is the involved object's key here. */
  private spamKey = 0;

  constructor(private readonly builder: KeyBuilder) {}

  /** The prefix of `event`'s keys; `spam()` is then its spam key. */
  of(event: Event): KeyPrefix {
    const ref = event.involvedObject;
    const kind = ref.kind ?? "";
    const namespace = ref.namespace ?? "";
    const name = ref.name ?? "";
    const uid = ref.uid ?? "";
    const apiVersion = ref.apiVersion ?? "";
    if (
      this.prefix !== undefined &&
      kind === this.kind &&
      namespace === this.namespace &&
      name === this.name &&
      uid === this.uid &&
      apiVersion === this.apiVersion
    ) {
      return this.prefix;
    }
    const prefix = this.builder.start().add(kind).add(namespace).add(name).add(uid).add(apiVersion).prefix();
    this.kind = kind;
    this.namespace = namespace;
    this.name = name;
    this.uid = uid;
    this.apiVersion = apiVersion;
    this.prefix = prefix;
    this.spamKey = this.builder.key();
    return prefix;
  }

  spam(): number {
    return this.spamKey;
  }
}

function messageCount(messages: AggregateMessages): number {
  return typeof messages === "string" ? 1 : messages.size;
}

function withMessage(messages: AggregateMessages, message: string): AggregateMessages {
  if (typeof messages !== "string") return messages.add(message);
  return messages === message ? messages : new Set([messages, message]);
}

export class EventCorrelator {
  private readonly aggregates = new SlotLru<AggregateMessages>(maxCacheEntries, { numbers: 1, values: 1 });
  private readonly observations = new SlotLru<string | undefined>(maxCacheEntries, { numbers: 1, values: 2 });
  private readonly spamFilter = new SpamFilter({
    burst: spamBurst,
    refillPerSecond: spamRefillPerSecond,
    maxEntries: maxCacheEntries,
  });
  /** Builds every key this correlator makes, one at a time. */
  private readonly keys = new KeyBuilder();
  private readonly involved = new InvolvedObjectPrefix(this.keys);

  /**
   * Decides what to write for `event` (a fresh count-1 Event) recorded at `nowMs`; undefined when the
   * spam filter drops it. `newEventName` names a combined Event when aggregation starts one.
   */
  correlate(event: Event, nowMs: number, newEventName: () => string): CorrelatedEvent | undefined {
    const involved = this.involved.of(event);
    const aggregated = this.aggregate(involved, event, nowMs, newEventName);
    const observed = this.observe(aggregated.event, aggregated.key);
    // client-go filters after observing, so a dropped repeat still advances the count the next write shows.
    return this.spamFilter.tryAccept(this.involved.spam(), nowMs) ? observed : undefined;
  }

  /** Identical events (client-go's getEventKey). */
  private eventKey(involved: KeyPrefix, event: Event): number {
    const { involvedObject, type, reason, message } = event;
    return this.keys
      .start(involved)
      .add(involvedObject.fieldPath ?? "")
      .add(type ?? "")
      .add(reason ?? "")
      .add(message ?? "")
      .key();
  }

  /** Events that differ only in message (EventAggregatorByReasonFunc). */
  private aggregateKey(involved: KeyPrefix, event: Event): number {
    return this.keys
      .start(involved)
      .add(event.type ?? "")
      .add(event.reason ?? "")
      .key();
  }

  /** Remembers the stored Event (its name may differ from the planned one) for the next repeat. */
  recordWritten(key: number, written: Event): void {
    this.remember(key, written.count ?? 1, written.firstTimestamp, written.metadata.name ?? "");
  }

  private remember(key: number, count: number, firstTimestamp: string | undefined, name: string): void {
    const { slot } = this.observations.upsert(key);
    this.observations.setNumber(slot, observedCountField, count);
    this.observations.setValue(slot, observedFirstTimestampField, firstTimestamp);
    this.observations.setValue(slot, observedNameField, name);
  }

  /** The name of the Event `key` was last written to, while remembered. */
  storedName(key: number): string | undefined {
    const slot = this.observations.find(key);
    return slot === -1 ? undefined : this.observations.value(slot, observedNameField);
  }

  private aggregate(
    involved: KeyPrefix,
    event: Event,
    nowMs: number,
    newEventName: () => string,
  ): { event: Event; key: number } {
    const key = this.aggregateKey(involved, event);
    const { slot, isNew } = this.aggregates.upsert(key);
    const known = this.aggregates.value(slot, aggregateMessagesField);
    const fresh =
      isNew || known === undefined || nowMs - this.aggregates.number(slot, aggregateLastMsField) > aggregateIntervalMs;
    const messages = fresh ? (event.message ?? "") : withMessage(known, event.message ?? "");
    this.aggregates.setValue(slot, aggregateMessagesField, messages);
    this.aggregates.setNumber(slot, aggregateLastMsField, nowMs);
    if (messageCount(messages) < aggregateMaxEvents || typeof messages === "string") {
      return { event, key: this.eventKey(involved, event) };
    }

    // Keep the message set at its bound; client-go drops an arbitrary one, kvol the oldest (deterministic).
    const oldest = messages.values().next();
    if (!oldest.done) messages.delete(oldest.value);
    const combined: Event = {
      ...event,
      metadata: { name: newEventName(), namespace: event.metadata.namespace },
      message: `${combinedEventMessagePrefix}${event.message ?? ""}`,
    };
    return { event: combined, key };
  }

  private observe(event: Event, key: number): CorrelatedEvent {
    const slot = this.observations.find(key);
    if (slot === -1) {
      this.recordWritten(key, event);
      return { event, key };
    }
    const count = this.observations.number(slot, observedCountField) + 1;
    const repeated: Event = {
      ...event,
      metadata: { ...event.metadata, name: this.observations.value(slot, observedNameField) ?? "" },
      firstTimestamp: this.observations.value(slot, observedFirstTimestampField),
      count,
    };
    this.recordWritten(key, repeated);
    const patch: EventPatch = {
      count,
      lastTimestamp: event.lastTimestamp ?? "",
      message: event.message ?? "",
    };
    return { event: repeated, patch, key };
  }
}
