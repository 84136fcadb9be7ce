/**
 * The fault campaign (`npm run campaign`): a few seconds over every built-in scenario find nothing;
 * the same seed draws the same schedules; and a planted bug (an attach/detach controller that skips
 * its Multi-Attach check) is found, shrunk and saved as a scenario file that replays it.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  builtinScenariosDir,
  campaignScenarioFiles,
  campaignTargets,
  saveAndPrint,
} from "../../cli/campaign-command.ts";
import { brokenMultiAttachPolicy } from "../../controllers/attachdetach/testing/broken-multi-attach-policy.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { faultCatalogue, faultNamed } from "../faults/catalogue.ts";
import { runScenario } from "../runner/run-scenario.ts";
import { loadScenarioFile } from "../scenario/load.ts";
import { type CampaignTarget, runCampaign, shardOwns } from "./campaign.ts";
import { summary } from "./campaign-report.ts";
import { formatFaultSchedule } from "./fault-schedule.ts";
import { scenarioRuns } from "./scenario-runs.ts";

const fixture = new URL("fixtures/rwo-deployment-two-nodes.yaml", import.meta.url).pathname;
const nodeFaults = ["node-power-off", "node-partition", "node-crash", "kubelet-restart"].map(faultNamed);
/** Runs end at 2m30s: long enough for a node fault to move the pod. */
const untilMs = 150_000;
const brokenController = { multiAttachPolicy: brokenMultiAttachPolicy };

/** A clock for the budget that moves `stepMs` each time it is read. */
function steppingClock(stepMs: number): { now(): number } {
  let nowMs = 0;
  return {
    now: () => {
      nowMs += stepMs;
      return nowMs;
    },
  };
}

function fixtureTarget(clusterOptions = {}): CampaignTarget {
  const scenario = loadScenarioFile(fixture);
  return {
    name: "rwo-deployment",
    file: fixture,
    runs: scenarioRuns(scenario, { untilMs, clusterOptions }),
    baselineSeed: 1,
  };
}

describe("npm run campaign", () => {
  it("runs every built-in scenario's schedules in turn for a few seconds and finds nothing", async () => {
    const files = campaignScenarioFiles(builtinScenariosDir);
    assert.ok(files.length >= 20, files.join(", "));
    const result = await runCampaign(campaignTargets(files), {
      schedules: 100_000,
      budgetMs: 5_000,
      firstSeed: 1,
      catalogue: [...faultCatalogue.values()],
      clock: new RealClock(),
    });
    assert.equal(result.stoppedBy, "budget");
    assert.ok(result.schedulesRun >= 1, "at least one schedule ran");
    assert.equal(result.tallies.length, files.length);
    assert.deepEqual(result.tallies[0]?.name, "000-statefulset-pod-recreated-same-node");
    assert.deepEqual(
      result.failures.map((entry) => entry.failure.replayCommand),
      [],
    );
  });

  it("spreads the schedules over the scenarios and draws the same ones from the same seed", async () => {
    const drawn = async () => {
      const schedules: string[] = [];
      await runCampaign([fixtureTarget(), { ...fixtureTarget(), name: "second" }], {
        schedules: 2,
        budgetMs: 3_600_000,
        firstSeed: 10,
        catalogue: nodeFaults,
        clock: steppingClock(1),
        onSchedule: (target, seed, outcome) =>
          schedules.push(`${target.name} ${seed} ${formatFaultSchedule(outcome.schedule)}`),
      });
      return schedules;
    };
    const first = await drawn();
    assert.deepEqual(
      first.map((line) => line.split(" ").slice(0, 2).join(" ")),
      ["rwo-deployment 10", "second 11"],
    );
    assert.deepEqual(await drawn(), first);
  });

  it("splits a campaign over shards that together run each schedule once, each shard every scenario", () => {
    const scenarios = 28;
    const owners = (index: number) => [0, 1].filter((shard) => shardOwns({ index: shard, count: 2 }, index, scenarios));
    const first = Array.from({ length: 2 * scenarios }, (_, index) => index).filter((index) =>
      shardOwns({ index: 0, count: 2 }, index, scenarios),
    );
    for (let index = 0; index < 10 * scenarios; index++) assert.deepEqual(owners(index).length, 1, `schedule ${index}`);
    // Shard 1 of 2 plays 000, 002, … in the first round and 001, 003, … in the second: all 28.
    assert.equal(first.length, scenarios);
    assert.deepEqual(new Set(first.map((index) => index % scenarios)).size, scenarios);
    assert.deepEqual(first.slice(0, 3), [0, 2, 4]);
    assert.deepEqual(first.slice(14, 17), [29, 31, 33]);
  });

  it("stops at the budget, and says what a schedule cost", async () => {
    // The clock moves 25 s at each read: the start, then before each schedule and around its run.
    const result = await runCampaign([fixtureTarget()], {
      schedules: 1_000,
      budgetMs: 150_000,
      firstSeed: 1,
      catalogue: nodeFaults,
      clock: steppingClock(25_000),
    });
    assert.equal(result.stoppedBy, "budget");
    assert.equal(result.schedulesRun, 2);
    const [header, row] = summary(result, "/tmp/out").split("\n");
    assert.match(header ?? "", /runs +s\/schedule$/);
    assert.match(row ?? "", /^rwo-deployment +2 +0 +\d+ +3 +25\.0$/);
  });

  it("finds a planted Multi-Attach bug, shrinks it and saves a scenario file that replays it", async () => {
    const out = mkdtempSync(join(tmpdir(), "kvol-campaign-test-"));
    try {
      const printed: string[] = [];
      const result = await runCampaign([fixtureTarget(brokenController)], {
        schedules: 4,
        budgetMs: 3_600_000,
        firstSeed: 4,
        catalogue: nodeFaults,
        clock: steppingClock(1),
        onFailure: (entry) => {
          printed.push(entry.scenario.name);
          saveAndPrint(entry, out, (text) => printed.push(text));
        },
      });
      const [entry] = result.failures;
      assert.ok(entry, `no failure in ${result.schedulesRun} schedules`);
      assert.equal(result.tallies[0]?.failures, result.failures.length);
      const { failure } = entry;
      assert.deepEqual(
        failure.violation?.violations.map((violation) => violation.invariant),
        ["rwo-single-attach"],
      );
      assert.ok(
        failure.shrunk.length >= 1 && failure.shrunk.length < failure.found.length,
        "shrinking removed a fault",
      );
      const saved = join(out, `rwo-deployment-two-nodes-seed-${failure.seed}.yaml`);
      assert.ok(existsSync(saved), saved);
      assert.ok(
        printed.some((text) => text.includes(`replay: kvol sim run ${saved}`)),
        printed.join("\n"),
      );

      const replayed = await runScenario(loadScenarioFile(saved), { clusterOptions: brokenController });
      assert.equal(replayed.seed, failure.seed);
      assert.deepEqual(replayed.violation?.violations, failure.violation?.violations);
      assert.equal(replayed.violation?.atMs, failure.violation?.atMs);
      const fixed = await runScenario(loadScenarioFile(saved), { untilMs });
      assert.equal(fixed.violation, undefined, "the real controller passes the saved schedule");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
