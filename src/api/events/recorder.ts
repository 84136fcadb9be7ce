/**
 * The EventRecorder a component uses to tell users what happened to an object (`kubectl describe`
 * shows these): client-go's `record.EventRecorder` with its broadcaster and sink folded in.
 *
 * Recording is fire-and-forget: `event()` returns at once and never throws; the Event is written in
 * the background, in recording order, and failures are logged. `flush()` waits for the writes, for
 * tests and orderly shutdown.
 *
 * What is written, as Kubernetes writes it:
 * - a first occurrence creates `<involvedObject.name>.<clock nanoseconds in hex>` in the object's
 *   namespace (`default` for cluster-scoped objects) with count 1 and first = last timestamp;
 * - a repeat patches that Event's count, lastTimestamp and message (see `event-correlator.ts` for
 *   deduplication, aggregation of similar events and the spam filter).
 */
import type { Clock } from "../../runtime/clock.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { ApiObject, Client } from "../client/client.ts";
import { ApiError, isAlreadyExists, isNotFound } from "../errors.ts";
import type { Event } from "../objects.ts";
import { type CorrelatedEvent, EventCorrelator } from "./event-correlator.ts";
import {
  type ObjectReference,
  objectReferenceFields,
  partReferenceFields,
  referenceTo,
  sameReference,
} from "./object-reference.ts";
import { RecentStrings } from "./recent-strings.ts";

export type EventType = "Normal" | "Warning";

/** Who reports: `component` (`kubelet`, `attachdetach-controller`) and, for node agents, `host`. */
interface EventSource {
  component: string;
  host?: string;
}

interface EventRecorderOptions {
  client: Client;
  clock: Clock;
  logger: Logger;
  source: EventSource;
}

/** Namespace of Events about cluster-scoped objects (metav1.NamespaceDefault). */
const clusterScopedEventNamespace = "default";
/** Events waiting to be written before new ones are dropped (client-go's `maxQueuedEvents`). */
const maxQueuedEvents = 1000;
/** Attempts to write one Event when the API cannot be reached (client-go's `maxTriesPerEvent`). */
const eventWriteMaxTries = 12;
/** Pause between those attempts (client-go's `defaultSleepDuration`; its random first pause is not reproduced). */
export const eventWriteRetrySleepMs = 10_000;
/** Fresh names tried when a planned Event name is taken by another recorder at the same instant. */
const eventNameCollisionMaxAttempts = 5;

const nanosecondsPerMillisecond = 1_000_000n;
/** Distinct messages a recorder remembers so that repeats share one string (recent-strings.ts). */
const sharedMessagesMaxEntries = 32;
/** Distinct container field paths a recorder remembers (a pod has a handful of containers). */
const sharedFieldPathsMaxEntries = 16;

export class EventRecorder {
  private readonly client: Client;
  private readonly clock: Clock;
  private readonly logger: Logger;
  /** Frozen, so every stored Event of this recorder shares the one object (the store keeps frozen parts). */
  private readonly source: Readonly<EventSource>;
  private readonly correlator = new EventCorrelator();
  private readonly queue: CorrelatedEvent[] = [];
  private draining: Promise<void> | undefined;
  private readonly messages = new RecentStrings(sharedMessagesMaxEntries);
  /**
   * The last involvedObject, frozen so the store keeps it as it is: consecutive events often name
   * the same object (a kubelet's Pulled, Created and Started name one container), and their stored
   * Events then share one reference instead of a copy each.
   */
  private lastReference: Readonly<ObjectReference> | undefined;
  /** lastReference's fields in order, so the comparison with the next reference allocates nothing. */
  private lastReferenceFields: readonly string[] = [];
  /** Container field paths (`spec.containers{app}`), built afresh by each caller: one copy each in the stored Events. */
  private readonly fieldPaths = new RecentStrings(sharedFieldPathsMaxEntries);
  /** Last timestamp used in a name: names at one instant get consecutive nanoseconds, so they never clash. */
  private lastNameNanoseconds = 0n;

  constructor(options: EventRecorderOptions) {
    if (!options.source.component) throw new Error("EventRecorder: source.component must not be empty");
    this.client = options.client;
    this.clock = options.clock;
    this.logger = options.logger;
    this.source = Object.freeze({ ...options.source });
  }

  /** Records an event about `object` (which must carry kind and metadata.name). */
  event(object: ApiObject, type: EventType, reason: string, message: string): void {
    let reference: ObjectReference;
    try {
      reference = referenceTo(object);
    } catch (error) {
      const why = errorMessage(error);
      this.logger.error("dropping event", { reason, eventMessage: message, error: why });
      return;
    }
    this.eventForReference(reference, type, reason, message);
  }

  /** Records an event about the object `reference` points at (a node by name, a container by fieldPath). */
  eventForReference(reference: ObjectReference, type: EventType, reason: string, message: string): void {
    const nowMs = this.clock.now();
    const fresh = this.makeEvent(this.sharedReference(reference), type, reason, this.messages.intern(message), nowMs);
    const correlated = this.correlator.correlate(fresh, nowMs, () => this.eventName(reference, nowMs));
    if (correlated === undefined) return;
    if (this.queue.length >= maxQueuedEvents) {
      this.logger.warn("dropping event: the write queue is full", {
        reason,
        object: describe(reference),
        queued: maxQueuedEvents,
      });
      return;
    }
    this.queue.push(correlated);
    this.draining ??= this.drain();
  }

  private sharedReference(reference: ObjectReference): ObjectReference {
    const last = this.lastReference;
    if (last !== undefined && sameReference(last, reference, this.lastReferenceFields)) return last;
    const fieldPath = reference.fieldPath === undefined ? undefined : this.fieldPaths.intern(reference.fieldPath);
    this.lastReference = frozenReference(reference, fieldPath);
    this.lastReferenceFields = Object.keys(this.lastReference);
    return this.lastReference;
  }

  /** Resolves once every event recorded so far (and any recorded meanwhile) has been written or given up. */
  async flush(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
  }

  private makeEvent(ref: ObjectReference, type: EventType, reason: string, message: string, nowMs: number): Event {
    const timestamp = formatRfc3339(nowMs);
    return {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: this.eventName(ref, nowMs), namespace: ref.namespace || clusterScopedEventNamespace },
      involvedObject: ref,
      reason,
      message,
      source: this.source,
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
      type,
      reportingComponent: this.source.component,
      reportingInstance: this.source.host ?? "",
    };
  }

  /** `<name>.<nanoseconds in hex>` as client-go's `fmt.Sprintf("%v.%x", ref.Name, t.UnixNano())`. */
  private eventName(ref: ObjectReference, nowMs: number): string {
    const nowNanoseconds = BigInt(Math.floor(nowMs)) * nanosecondsPerMillisecond;
    this.lastNameNanoseconds =
      nowNanoseconds > this.lastNameNanoseconds ? nowNanoseconds : this.lastNameNanoseconds + 1n;
    // join builds a flat string: the name is kept in the Event and in the correlator's cache.
    return [ref.name ?? "", this.lastNameNanoseconds.toString(16)].join(".");
  }

  private async drain(): Promise<void> {
    try {
      for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) await this.write(next);
    } finally {
      this.draining = undefined;
    }
  }

  /** Writes one Event, retrying only what a retry can fix (the API unreachable); never throws. */
  private async write(correlated: CorrelatedEvent): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        const written = await this.writeOnce(correlated);
        this.correlator.recordWritten(correlated.key, written);
        return;
      } catch (error) {
        const fields = { ...eventFields(correlated.event), error };
        if (error instanceof ApiError) {
          this.logger.error("server rejected event; not retrying", fields);
          return;
        }
        if (tries >= eventWriteMaxTries) {
          this.logger.error("unable to write event; retry limit reached", fields);
          return;
        }
        this.logger.warn("unable to write event; retrying", { ...fields, retryInMs: eventWriteRetrySleepMs });
        await this.clock.sleep(eventWriteRetrySleepMs);
      }
    }
  }

  private async writeOnce({ event, patch, key }: CorrelatedEvent): Promise<Event> {
    const namespace = event.metadata.namespace ?? clusterScopedEventNamespace;
    if (patch !== undefined) {
      // The name as stored, which differs from the planned one if creating it had to pick a fresh name.
      const name = this.correlator.storedName(key) ?? event.metadata.name ?? "";
      try {
        return await this.client.events.patch(namespace, name, patch);
      } catch (error) {
        // The Event is gone (expired or deleted): create it again, keeping its count, as client-go does.
        if (!isNotFound(error)) throw error;
      }
    }
    return this.createWithFreshNameIfTaken(event);
  }

  private async createWithFreshNameIfTaken(event: Event): Promise<Event> {
    let candidate: Event = { ...event, metadata: { name: event.metadata.name, namespace: event.metadata.namespace } };
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.client.events.create(candidate);
      } catch (error) {
        if (!isAlreadyExists(error) || attempt >= eventNameCollisionMaxAttempts) throw error;
        const name = this.eventName(candidate.involvedObject, this.clock.now());
        candidate = { ...candidate, metadata: { ...candidate.metadata, name } };
      }
    }
  }
}

/**
 * A frozen copy of `reference` (the caller's object stays its own and unfrozen), with `fieldPath` as
 * given. The usual references, to a namespaced object or one of its containers, are object literals:
 * V8 keeps a literal's fields inside the object, where one built field by field keeps those past the
 * fourth in a separate array, one more allocation held by every stored reference. Others are built
 * field by field, in the caller's order: copies made by spreading and then freezing each got a
 * hidden class of their own in V8, kept per Event, where objects built by adding fields in one order
 * share one.
 */
function frozenReference(reference: ObjectReference, fieldPath: string | undefined): Readonly<ObjectReference> {
  const { kind, namespace, name, uid, apiVersion, resourceVersion } = reference;
  const fields = Object.keys(reference);
  if (hasExactly(reference, fields, objectReferenceFields)) {
    return Object.freeze({ kind, namespace, name, uid, apiVersion, resourceVersion });
  }
  if (hasExactly(reference, fields, partReferenceFields)) {
    return Object.freeze({ kind, namespace, name, uid, apiVersion, resourceVersion, fieldPath });
  }
  const copy: ObjectReference = {};
  for (const key of fields as (keyof ObjectReference)[]) {
    const value = key === "fieldPath" ? fieldPath : reference[key];
    if (value !== undefined) copy[key] = value;
  }
  return Object.freeze(copy);
}

/** True when `fields` (reference's own) are `expected`, in that order, each set. */
function hasExactly(reference: ObjectReference, fields: readonly string[], expected: readonly string[]): boolean {
  if (fields.length !== expected.length) return false;
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index] as keyof ObjectReference;
    if (field !== expected[index] || reference[field] === undefined) return false;
  }
  return true;
}

function describe(ref: ObjectReference): string {
  return `${ref.kind ?? ""} ${ref.namespace ? `${ref.namespace}/` : ""}${ref.name ?? ""}`;
}

function eventFields(event: Event): Record<string, unknown> {
  return { reason: event.reason, object: describe(event.involvedObject), eventMessage: event.message };
}
