/**
 * The chain being told: links from the object down, then what to do. Explainers add to it as they
 * walk the objects and states; the first blocker found ends the walk.
 */
import type { Event } from "../../api/objects.ts";
import { humanDuration } from "../../api/printers/human-duration.ts";
import { formatRfc3339, parseRfc3339 } from "../../runtime/clock.ts";
import { lastSeenMs, type WhyReader } from "./why-reader.ts";
import type { WhyLink } from "./why-report.ts";

export class Chain {
  readonly links: WhyLink[] = [];
  readonly remedy: string[] = [];

  constructor(readonly reader: WhyReader) {}

  get nowMs(): number {
    return this.reader.nowMs;
  }

  add(subject: string, state: string, sinceMs?: number, evidence: string[] = []): WhyLink {
    const link: WhyLink = { subject, state, evidence, ...(sinceMs === undefined ? {} : { sinceMs }) };
    this.links.push(link);
    return link;
  }

  todo(...steps: string[]): void {
    this.remedy.push(...steps);
  }

  /** How long ago, as kubectl prints an age. */
  ago(atMs: number): string {
    return humanDuration(this.nowMs - atMs);
  }

  /** How long until, as kubectl prints an age. */
  untilTime(atMs: number): string {
    return humanDuration(atMs - this.nowMs);
  }

  /** An event as evidence: `FailedMount (×5, last 20s ago): <message>`. */
  eventEvidence(event: Event): string {
    const count = (event.count ?? 1) > 1 ? `×${event.count}, ` : "";
    return `event ${event.reason ?? ""} (${count}last ${this.ago(lastSeenMs(event))} ago): ${firstLine(event.message ?? "")}`.trim();
  }
}

/** Epoch ms of an RFC 3339 timestamp; undefined without one. */
export function timeMs(text: string | undefined): number | undefined {
  if (text === undefined || text === "") return undefined;
  const ms = parseRfc3339(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The cluster clock's wall time of day, `00:14:05`, as a user reads a timer's deadline. */
export function clockTime(epochMs: number): string {
  return formatRfc3339(epochMs).slice(11, 19);
}

/** The first line of a multi-line error (mount's output follows on the next lines). */
export function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}
