/**
 * A timeline step that fails under a random fault is a failure of the run, like an invariant
 * violation: explore stops at it, shrinks the schedule to the faults it needs and prints a command
 * that replays it — never "ok".
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { faultNamed } from "../faults/catalogue.ts";
import { loadScenarioFile } from "../scenario/load.ts";
import { exploreScenario, type RandomRunOutcome } from "./explore.ts";
import { failureReport, seedLine } from "./explore-report.ts";
import { scenarioRuns } from "./scenario-runs.ts";

const fixture = new URL("fixtures/write-after-node-fault.yaml", import.meta.url).pathname;
const catalogue = ["node-power-off", "kubelet-restart"].map(faultNamed);

describe("kvol sim explore: a failed timeline step", () => {
  it("is reported as a failure, shrunk to the fault it needs, and replays the same way", async () => {
    const scenario = loadScenarioFile(fixture);
    const runs = scenarioRuns(scenario);
    const lines: string[] = [];
    const result = await exploreScenario(runs, {
      file: fixture,
      seeds: 12,
      catalogue,
      onSeed: (seed: number, outcome: RandomRunOutcome) => lines.push(seedLine(seed, outcome)),
    });
    const failure = result.failure;
    assert.ok(failure, `no failure in ${result.seedsRun} seeds:\n${lines.join("\n")}`);
    assert.equal(failure.violation, undefined, "no invariant is broken: the step failed");
    assert.equal(failure.failedStep?.step, "timeline step write at 00:02:00.000");
    assert.match(lines.at(-1) ?? "", /— STEP FAILED \(timeline step write at 00:02:00\.000\)$/);
    assert.ok(
      lines.slice(0, -1).every((line) => / — ok/.test(line)),
      lines.join("\n"),
    );
    assert.equal(failure.reproduced, true);
    assert.ok(failure.shrunk.length >= 1 && failure.shrunk.length <= failure.found.length);
    assert.ok(
      failure.shrunk.some((entry) => entry.fault === "node-power-off" && entry.atMs < 120_000),
      JSON.stringify(failure.shrunk),
    );

    const report = failureReport(failure);
    assert.match(
      report,
      /^Timeline step failed with seed \d+:\n {2}timeline step write at 00:02:00\.000 failed at 2m0s: /,
    );
    assert.match(report, /Replay it with:\n {2}kvol sim explore .*--seed \d+ --replay /);

    const replayed = await runs.replay(failure.seed, failure.shrunk);
    assert.deepEqual(replayed.failedStep, failure.failedStep);
  });

  it("without faults the scenario runs to its end and nothing fails", async () => {
    const outcome = await scenarioRuns(loadScenarioFile(fixture)).replay(1, []);
    assert.equal(outcome.failedStep, undefined);
    assert.equal(outcome.violation, undefined);
    assert.equal(outcome.endMs, 150_000);
  });
});
