/**
 * The readable account of a run: virtual time, component, object, what happened. Entries come
 * from the runner's own actions and faults (component `scenario`), from the cluster's Events as
 * they are recorded, and from the log lines a user cares about (`log-highlights.ts`).
 */
import type { Event } from "../../api/objects.ts";
import type { LogRecord } from "../../runtime/logger.ts";
import type { EventOccurrence } from "./event-observer.ts";
import { isHighlight, logObject } from "./log-highlights.ts";

export interface TimelineEntry {
  /** Run time: milliseconds since the run started. */
  readonly atMs: number;
  readonly component: string;
  /** `pod default/web-0`, `node node-a`; "" when the line is about nothing in particular. */
  readonly object: string;
  readonly message: string;
}

/** Same-time entries are listed actions first, then Events, then log lines. */
const sourceOrder = { action: 0, event: 1, log: 2 } as const;

interface Sorted {
  readonly entry: TimelineEntry;
  readonly source: keyof typeof sourceOrder;
  readonly sequence: number;
}

/** The first words of a message, which tell a log line and the Event it led to apart from others. */
const sameStoryWordCount = 4;

export class TimelineRecorder {
  private readonly entries: Sorted[] = [];
  /** Pod uid → `namespace/name`, learnt from Events, to name the pods that log lines give by uid. */
  private readonly podNames = new Map<string, string>();
  /** `run time|first words` of every Event message, so a log line saying the same is left out. */
  private readonly eventStories = new Set<string>();

  action(atMs: number, object: string, message: string): void {
    this.add("action", { atMs, component: "scenario", object, message });
  }

  events(occurrences: readonly EventOccurrence[]): void {
    for (const { event, atMs } of occurrences) {
      const { kind, uid, namespace, name } = event.involvedObject;
      if (kind === "Pod" && uid !== undefined) this.podNames.set(uid, `${namespace ?? ""}/${name ?? ""}`);
      this.eventStories.add(`${atMs}|${firstWords(event.message ?? "")}`);
      this.add("event", {
        atMs,
        component: eventComponent(event),
        object: eventObject(event),
        message: eventMessage(event),
      });
    }
  }

  /** Adds the highlights among `records`, whose times are on the cluster clock that read `startMs` at run time 0. */
  logs(records: readonly LogRecord[], startMs: number, endMs: number): void {
    for (const record of records) {
      const atMs = record.timeMs - startMs;
      if (atMs < 0 || atMs > endMs || !isHighlight(record)) continue;
      if (this.eventStories.has(`${atMs}|${firstWords(record.message)}`)) continue;
      const object = logObject(record, this.podNames);
      this.add("log", { atMs, component: record.component || "log", object, message: record.message });
    }
  }

  /** Every entry, by time. */
  list(): TimelineEntry[] {
    return [...this.entries]
      .sort(
        (a, b) =>
          a.entry.atMs - b.entry.atMs || sourceOrder[a.source] - sourceOrder[b.source] || a.sequence - b.sequence,
      )
      .map((sorted) => sorted.entry);
  }

  private add(source: Sorted["source"], entry: TimelineEntry): void {
    this.entries.push({ entry, source, sequence: this.entries.length });
  }
}

function eventComponent(event: Event): string {
  return event.source?.component || event.reportingComponent || "events";
}

function firstWords(message: string): string {
  return message.split(" ", sameStoryWordCount).join(" ");
}

/** The kind words conditions use: `pvc`, `pv`, else the kind in lower case. */
const kindWords: Readonly<Record<string, string>> = { PersistentVolumeClaim: "pvc", PersistentVolume: "pv" };

function eventObject(event: Event): string {
  const { kind = "", namespace, name = "" } = event.involvedObject;
  return `${kindWords[kind] ?? kind.toLowerCase()} ${namespace ? `${namespace}/` : ""}${name}`;
}

function eventMessage(event: Event): string {
  const count = event.count ?? 1;
  const repeated = count > 1 ? ` (x${count})` : "";
  return `${event.type === "Warning" ? "Warning " : ""}${event.reason ?? ""}: ${event.message ?? ""}${repeated}`;
}
