/**
 * What `kvol sim explore` prints: a line per explored seed, then either the summary or the
 * violation with the shrunk schedule and the command that replays it.
 */
import { formatGoDuration } from "../../runtime/duration.ts";
import type { ExploreFailure, ExploreResult, RandomRunOutcome, RunViolation } from "./explore.ts";
import type { FaultSchedule, ScheduledFault } from "./fault-schedule.ts";

/** `node-power-off node=node-a at 1m5s, healed at 6m`. */
export function describeScheduledFault(entry: ScheduledFault): string {
  const params = Object.entries(entry.params)
    .map(([name, value]) => `${name}=${value}`)
    .join(" ");
  const healed = entry.healAtMs === undefined ? "" : `, healed at ${formatGoDuration(entry.healAtMs)}`;
  return `${entry.fault}${params === "" ? "" : ` ${params}`} at ${formatGoDuration(entry.atMs)}${healed}`;
}

export function describeSchedule(schedule: FaultSchedule): string {
  return schedule.length === 0 ? "no fault" : schedule.map(describeScheduledFault).join("; ");
}

export function describeViolation(violation: RunViolation): string[] {
  return violation.violations.map(
    (entry) => `${entry.invariant} at ${formatGoDuration(violation.atMs)}: ${entry.message}`,
  );
}

/** One line per explored seed. */
export function seedLine(seed: number, outcome: RandomRunOutcome): string {
  if (outcome.violation !== undefined)
    return `seed ${seed}: ${describeSchedule(outcome.schedule)} — INVARIANT VIOLATED`;
  // Not a failure, but the run ended before the scenario did: say why, since it explored less.
  const early = outcome.failedStep === undefined ? "" : ` (stopped early: ${outcome.failedStep})`;
  const skipped = outcome.skipped.length === 0 ? "" : ` (skipped ${outcome.skipped.join("; ")})`;
  return `seed ${seed}: ${describeSchedule(outcome.schedule)} — ok${early}${skipped}`;
}

export function failureReport(failure: ExploreFailure): string {
  const lines = [`Invariant violated with seed ${failure.seed}:`];
  lines.push(...describeViolation(failure.violation).map((line) => `  ${line}`));
  if (!failure.reproduced) {
    lines.push(
      "Replaying the same schedule did not break the invariant again, so it was not shrunk;",
      "the violation depends on more than the seed and the schedule — please report it.",
      `Schedule: ${describeSchedule(failure.found)}`,
    );
  } else {
    lines.push(
      `Shrunk from ${failure.found.length} to ${failure.shrunk.length} fault(s) in ${failure.shrinkRuns} run(s): ${describeSchedule(failure.shrunk)}`,
    );
  }
  lines.push("Replay it with:", `  ${failure.replayCommand}`);
  return `${lines.join("\n")}\n`;
}

export function summaryLine(result: ExploreResult, wallMs: number): string {
  const took = `${result.runs} run(s), span ${formatGoDuration(result.spanMs)} each, ${formatGoDuration(wallMs)} wall time`;
  if (result.failure !== undefined) return `${result.seedsRun} seed(s) explored until a violation (${took})\n`;
  return `${result.seedsRun} seed(s) explored, no invariant violated (${took})\n`;
}
