/**
 * The text report of a run: the timeline (virtual time, component, object, what happened), the
 * invariant violation if one stopped the run, then one verdict per expectation and a summary.
 */
import { formatClock } from "../scenario/duration.ts";
import type { ScenarioResult } from "./run-scenario.ts";
import type { TimelineEntry } from "./timeline.ts";
import type { Verdict } from "./verdict.ts";

const componentColumnMaxChars = 28;
const objectColumnMaxChars = 32;
const statusLabels: Readonly<Record<Verdict["status"], string>> = {
  passed: "PASS",
  failed: "FAIL",
  "not decided": "----",
};

export interface TextReportInput {
  readonly scenarioName: string;
  /** The file as the user named it. */
  readonly file: string;
  readonly result: ScenarioResult;
}

export function formatTextReport({ scenarioName, file, result }: TextReportInput): string {
  const lines = [`scenario: ${scenarioName} (${file}, seed ${result.seed})`, ...timelineLines(result.timeline)];
  if (result.violation !== undefined) lines.push("", ...violationLines(result));
  lines.push("", ...result.verdicts.map(verdictLine), summaryLine(result));
  return `${lines.join("\n")}\n`;
}

function timelineLines(entries: readonly TimelineEntry[]): string[] {
  const componentWidth = Math.min(componentColumnMaxChars, Math.max(0, ...entries.map((e) => e.component.length)));
  const objectWidth = Math.min(objectColumnMaxChars, Math.max(0, ...entries.map((e) => e.object.length)));
  return entries.map((entry) =>
    [formatClock(entry.atMs), entry.component.padEnd(componentWidth), entry.object.padEnd(objectWidth), entry.message]
      .join("  ")
      .trimEnd(),
  );
}

function violationLines(result: ScenarioResult): string[] {
  const violation = result.violation;
  if (violation === undefined) return [];
  const lines = [`INVARIANT VIOLATED at ${formatClock(violation.atMs)} — the run stopped`];
  for (const { invariant, message, objects } of violation.violations) {
    lines.push(`  ${invariant}: ${message}`, `    objects: ${objects.join(", ")}`);
  }
  if (violation.history.length > 0) lines.push("  recent history:", ...violation.history.map((line) => `    ${line}`));
  return lines;
}

function verdictLine(verdict: Verdict): string {
  const where = verdict.line > 0 ? ` (line ${verdict.line})` : "";
  return `${statusLabels[verdict.status]}  ${verdict.expectation} — ${verdict.detail}${where}`;
}

function summaryLine(result: ScenarioResult): string {
  const failed = result.verdicts.filter((verdict) => verdict.status === "failed").length;
  const undecided = result.verdicts.filter((verdict) => verdict.status === "not decided").length;
  const total = result.verdicts.length;
  const ended = `ended at ${formatClock(result.endMs)}`;
  if (result.passed) return `PASSED: ${total} of ${total} expectations held, no invariant violated (${ended})`;
  const parts = [
    failed > 0 ? `${failed} of ${total} expectations failed` : "",
    undecided > 0 ? `${undecided} not decided` : "",
    result.violation !== undefined ? "an invariant was violated" : "",
  ].filter((part) => part !== "");
  return `FAILED: ${parts.join(", ")} (${ended})`;
}
