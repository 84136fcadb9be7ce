/**
 * The `--json` report: one plain object per run, every time in run milliseconds plus the clock
 * text, keys in a fixed order, so the same seed gives byte-identical output.
 */
import { formatClock } from "../scenario/duration.ts";
import type { ScenarioResult } from "./run-scenario.ts";

export interface JsonReportInput {
  readonly scenarioName: string;
  readonly file: string;
  readonly result: ScenarioResult;
}

export function jsonReport({ scenarioName, file, result }: JsonReportInput): Record<string, unknown> {
  return {
    scenario: scenarioName,
    file,
    seed: result.seed,
    passed: result.passed,
    endMs: result.endMs,
    timeline: result.timeline.map((entry) => ({
      atMs: entry.atMs,
      time: formatClock(entry.atMs),
      component: entry.component,
      object: entry.object,
      message: entry.message,
    })),
    verdicts: result.verdicts.map((verdict) => ({
      expectation: verdict.expectation,
      kind: verdict.kind,
      status: verdict.status,
      ...(verdict.atMs === undefined ? {} : { atMs: verdict.atMs }),
      detail: verdict.detail,
      line: verdict.line,
    })),
    ...(result.violation === undefined
      ? {}
      : {
          violation: {
            atMs: result.violation.atMs,
            violations: result.violation.violations.map(({ invariant, message, objects }) => ({
              invariant,
              message,
              objects: [...objects],
            })),
            history: [...result.violation.history],
          },
        }),
  };
}
