/**
 * What `kvol why` prints: the causal chain from the object asked about down to the lowest thing
 * that blocks it, one link per line with how long it has been so and the evidence under it, then
 * what to do. `-o json` prints the same report as JSON.
 *
 *   pod default/web-0: ContainerCreating for 3m
 *   └─ volume "data": claim default/data-web-0
 *      └─ claim default/data-web-0: Bound to pv pvc-1 for 9m
 *         └─ …
 *   What to do:
 *     …
 */
import { humanDuration } from "../../api/printers/human-duration.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";

export interface WhyLink {
  /** What this link is: `pod default/web-0`, `volume "data"`, `node node-a`. */
  subject: string;
  /** Its state as it bears on the chain: `ContainerCreating`, `Multi-Attach: attached to node-a`. */
  state: string;
  /** Since when it has been so (epoch ms), when known: printed as an age. */
  sinceMs?: number;
  /** What shows it: an event, an operation's error, a debug state's entry. */
  evidence: string[];
}

export interface WhyReport {
  object: string;
  /** The cluster's time the report was made at. */
  time: string;
  links: WhyLink[];
  /** What to do, each a sentence or a command. */
  remedy: string[];
  /** Debug endpoints that could not be read: the chain was told without them. */
  unreadable: string[];
}

export interface JsonWhyLink extends Omit<WhyLink, "sinceMs"> {
  since?: string;
  age?: string;
}

/** The report as `-o json` prints it (times as RFC 3339, ages as kubectl prints them). */
export function reportJson(report: WhyReport, nowMs: number): unknown {
  return {
    ...report,
    links: report.links.map(({ sinceMs, ...link }): JsonWhyLink => {
      if (sinceMs === undefined) return link;
      return { ...link, since: formatRfc3339(sinceMs), age: humanDuration(nowMs - sinceMs) };
    }),
  };
}

const indentStep = "   ";

function linkLine(link: WhyLink, nowMs: number): string {
  const age = link.sinceMs === undefined ? "" : ` (for ${humanDuration(nowMs - link.sinceMs)})`;
  return `${link.subject}: ${link.state}${age}`;
}

/** The human-readable tree. */
export function reportText(report: WhyReport, nowMs: number): string {
  const lines: string[] = [];
  report.links.forEach((link, depth) => {
    const indent = depth === 0 ? "" : `${indentStep.repeat(depth - 1)}└─ `;
    lines.push(`${indent}${linkLine(link, nowMs)}`);
    const evidenceIndent = depth === 0 ? "   " : `${indentStep.repeat(depth)}`;
    for (const evidence of link.evidence) {
      const [first = "", ...rest] = evidence.split("\n");
      lines.push(`${evidenceIndent}· ${first}`);
      for (const line of rest) lines.push(`${evidenceIndent}  ${line}`);
    }
  });
  if (report.remedy.length > 0) {
    lines.push("What to do:");
    for (const step of report.remedy) lines.push(`  ${step}`);
  }
  if (report.unreadable.length > 0) {
    lines.push("Not read (the chain was told without it):");
    for (const what of report.unreadable) lines.push(`  ${what}`);
  }
  return `${lines.join("\n")}\n`;
}
