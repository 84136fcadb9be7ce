/**
 * What the fault campaign prints: a line per failure as it is found, and at the end a table of
 * the scenarios (schedules run, failures, schedules whose timeline step failed, runs spent, mean wall
 * time of a schedule) with the totals and the rate.
 */
import { formatGoDuration } from "../../runtime/duration.ts";
import type { CampaignFailure, CampaignResult, ScenarioTally } from "./campaign.ts";
import { describeFailedStep, describeSchedule, describeViolation } from "./explore-report.ts";

/** One line per invariant violated and per failed step. */
export function failureLines(entry: CampaignFailure): string[] {
  const { failure } = entry;
  return [
    ...(failure.violation === undefined ? [] : describeViolation(failure.violation)),
    ...(failure.failedStep === undefined ? [] : [describeFailedStep(failure.failedStep)]),
  ];
}

/** The block printed when a failure is found and saved. */
export function failureBlock(entry: CampaignFailure, savedPath: string): string {
  const { failure } = entry;
  const how = entry.withoutFaults
    ? "fails with no added fault"
    : failure.reproduced
      ? `shrunk from ${failure.found.length} to ${failure.shrunk.length} fault(s): ${describeSchedule(failure.shrunk)}`
      : `did not fail again on replay (not shrunk): ${describeSchedule(failure.found)}`;
  return [
    `FAILURE in ${entry.scenario.name}, seed ${failure.seed}: ${how}`,
    ...failureLines(entry).map((line) => `  ${line}`),
    `  saved: ${savedPath}`,
    `  replay: kvol sim run ${savedPath}`,
    `      or: ${failure.replayCommand}`,
    "",
  ].join("\n");
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** Schedules per second of wall time, one decimal. */
export function schedulesPerSecond(result: CampaignResult): string {
  if (result.wallMs <= 0) return "-";
  return ((result.schedulesRun * 1000) / result.wallMs).toFixed(1);
}

/** Mean wall seconds of one schedule's run, one decimal: what a scenario costs the budget. */
export function secondsPerSchedule(tally: ScenarioTally): string {
  return tally.schedules === 0 ? "-" : (tally.scheduleWallMs / 1000 / tally.schedules).toFixed(1);
}

export function summary(result: CampaignResult, failuresDir: string): string {
  const rows = [
    ["scenario", "schedules", "failures", "steps failed", "runs", "s/schedule"],
    ...result.tallies.map((tally) => [
      tally.name,
      String(tally.schedules),
      String(tally.failures),
      String(tally.stepsFailed),
      String(tally.runs),
      secondsPerSchedule(tally),
    ]),
  ];
  const failures = result.failures.length;
  const stopped = result.stoppedBy === "budget" ? "the budget ran out" : "every schedule asked for ran";
  return [
    table(rows),
    "",
    `scenarios: ${result.tallies.length}  schedules run: ${result.schedulesRun}  failures: ${failures}  steps failed: ${result.tallies.reduce((sum, tally) => sum + tally.stepsFailed, 0)}  schedules/s: ${schedulesPerSecond(result)}  wall time: ${formatGoDuration(Math.round(result.wallMs))} (stopped: ${stopped})`,
    failures === 0 ? "no invariant violated" : `failures saved in ${failuresDir}`,
    "",
  ].join("\n");
}
