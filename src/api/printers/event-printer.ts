/**
 * The columns of `kubectl get events`: LAST SEEN, TYPE, REASON, OBJECT (`kind/name`, lower-case
 * kind) and MESSAGE; with `-o wide` also the sub-object, source, first seen, count and name.
 * Events of the events.k8s.io shape (eventTime, series) print as Kubernetes prints them.
 */
import type { Event } from "../objects.ts";
import { ageSince } from "./human-duration.ts";
import { column, nameColumn, type ObjectPrinter } from "./table-types.ts";

const columns = [
  column("Last Seen", "The time at which the most recent occurrence of this event was recorded."),
  column("Type", "Type of this event (Normal, Warning), new types could be added in the future"),
  column(
    "Reason",
    "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
  ),
  column("Object", "The object that this event is about."),
  column(
    "Subobject",
    "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].",
    {
      priority: 1,
    },
  ),
  column("Source", "The component reporting this event. Should be a short machine understandable string.", {
    priority: 1,
  }),
  column("Message", "A human-readable description of the status of this operation."),
  column("First Seen", "The time at which the event was first recorded.", { priority: 1 }),
  column("Count", "The number of times this event has occurred.", { priority: 1 }),
  { ...nameColumn, priority: 1 },
];

/** `component, host`, or just the component; falls back to the reporting controller and instance. */
export function eventSourceText(event: Event): string {
  const component = event.source?.component || event.reportingComponent || "";
  const instance = event.source?.host || event.reportingInstance || "";
  return instance === "" ? component : `${component}, ${instance}`;
}

/** `pod/web-0`: the involved object's lower-case kind and name. */
function eventObjectText(event: Event): string {
  const kind = (event.involvedObject.kind ?? "").toLowerCase();
  const name = event.involvedObject.name ?? "";
  return name === "" ? kind : `${kind}/${name}`;
}

/** When the event was first and last seen, and how often, by whichever fields the recorder set. */
function eventTimes(event: Event, nowMs: number): { firstSeen: string; lastSeen: string; count: number } {
  const firstSeen = event.firstTimestamp
    ? ageSince(event.firstTimestamp, nowMs)
    : ageSince(event.eventTime ?? undefined, nowMs);
  if (event.series !== undefined) {
    return { firstSeen, lastSeen: ageSince(event.series.lastObservedTime, nowMs), count: event.series.count ?? 1 };
  }
  const lastSeen = event.lastTimestamp ? ageSince(event.lastTimestamp, nowMs) : firstSeen;
  // Singleton events of the newer API carry no count.
  return { firstSeen, lastSeen, count: event.count || 1 };
}

export const eventPrinter: ObjectPrinter<Event> = {
  columns,
  row(event, nowMs) {
    const times = eventTimes(event, nowMs);
    return {
      cells: [
        times.lastSeen,
        event.type ?? "",
        event.reason ?? "",
        eventObjectText(event),
        event.involvedObject.fieldPath ?? "",
        eventSourceText(event),
        (event.message ?? "").trim(),
        times.firstSeen,
        times.count,
        event.metadata.name ?? "",
      ],
    };
  },
};
