/**
 * What `kvol sim explore` prints: a line per explored seed, then either the summary or the
 * failure (an invariant violated, a timeline step failed) with the shrunk schedule and the command
 * that replays it.
 */
import { formatGoDuration } from "../../runtime/duration.ts";
import type {
  ExploreFailure,
  ExploreResult,
  FailedStep,
  RandomRunOutcome,
  RunFailure,
  RunViolation,
} from "./explore.ts";
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

/** `timeline step fault at 2m failed at 2m: <why>`. */
export function describeFailedStep(step: FailedStep): string {
  return `${step.step} failed at ${formatGoDuration(step.atMs)}: ${step.detail}`;
}

/** What failed, one line per invariant violated and one for the failed step. */
function describeFailure(failure: RunFailure): string[] {
  return [
    ...(failure.violation === undefined ? [] : describeViolation(failure.violation)),
    ...(failure.failedStep === undefined ? [] : [describeFailedStep(failure.failedStep)]),
  ];
}

/** `Invariant violated`, `Timeline step failed`, or both. */
function failureTitle(failure: RunFailure): string {
  const what = [
    ...(failure.violation === undefined ? [] : ["Invariant violated"]),
    ...(failure.failedStep === undefined ? [] : ["Timeline step failed"]),
  ];
  return what.join(" and ");
}

/** One line per explored seed. */
export function seedLine(seed: number, outcome: RandomRunOutcome): string {
  const schedule = describeSchedule(outcome.schedule);
  if (outcome.violation !== undefined) return `seed ${seed}: ${schedule} — INVARIANT VIOLATED`;
  if (outcome.failedStep !== undefined) return `seed ${seed}: ${schedule} — STEP FAILED (${outcome.failedStep.step})`;
  const skipped = outcome.skipped.length === 0 ? "" : ` (skipped ${outcome.skipped.join("; ")})`;
  return `seed ${seed}: ${schedule} — ok${skipped}`;
}

export function failureReport(failure: ExploreFailure): string {
  const lines = [`${failureTitle(failure)} with seed ${failure.seed}:`];
  lines.push(...describeFailure(failure).map((line) => `  ${line}`));
  if (!failure.reproduced) {
    lines.push(
      "Replaying the same schedule did not fail the same way again, so it was not shrunk;",
      "the failure depends on more than the seed and the schedule — please report it.",
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
  if (result.failure !== undefined) return `${result.seedsRun} seed(s) explored until a failure (${took})\n`;
  return `${result.seedsRun} seed(s) explored, no invariant violated and no step failed (${took})\n`;
}
