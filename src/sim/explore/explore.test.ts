/**
 * Random exploration against a deliberately broken attach/detach controller (an injected policy
 * that allows every Multi-Attach): explore must find the double attach, shrink the schedule
 * to the faults it needs, and print a replay command that breaks the invariant again. With the
 * real controller, the same seeds find nothing.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import { parseExploreArguments } from "../../cli/sim-explore-command.ts";
import { brokenMultiAttachPolicy } from "../../controllers/attachdetach/testing/broken-multi-attach-policy.ts";
import { faultNamed } from "../faults/catalogue.ts";
import { runScenario } from "../runner/run-scenario.ts";
import { loadScenarioFile } from "../scenario/load.ts";
import { exploreScenario } from "./explore.ts";
import { parseFaultSchedule } from "./fault-schedule.ts";
import { scenarioRuns } from "./scenario-runs.ts";

const fixture = new URL("fixtures/rwo-deployment-two-nodes.yaml", import.meta.url).pathname;
/** Node faults only, so a handful of seeds is enough to hit the node that holds the volume. */
const nodeFaults = ["node-power-off", "node-partition", "node-crash", "kubelet-restart"].map(faultNamed);
/** Seeds 4… draw a two-fault schedule first, so shrinking has something to remove. */
const firstSeed = 4;
const seeds = 4;
/** Runs end at 2m30s: long enough for a node fault to move the pod, short enough for a quick test. */
const untilMs = 150_000;
const brokenController = { clusterOptions: { multiAttachPolicy: brokenMultiAttachPolicy } };
const replayFlags = ["--until", "2m30s", "--test-only-break-multi-attach-check"];

/** The words a POSIX shell makes of `line` (the printed replay command). */
function shellWords(line: string): string[] {
  return execFileSync("sh", ["-c", `printf '%s\\n' ${line}`], { encoding: "utf8" })
    .trimEnd()
    .split("\n");
}

describe("kvol sim explore", () => {
  it("catches a controller that skips the Multi-Attach check, shrinks the schedule and replays it", async () => {
    const scenario = loadScenarioFile(fixture);
    const result = await exploreScenario(scenarioRuns(scenario, { ...brokenController, untilMs }), {
      file: fixture,
      firstSeed,
      seeds,
      catalogue: nodeFaults,
      replayFlags,
    });
    const failure = result.failure;
    assert.ok(failure, `no violation in ${result.seedsRun} seeds`);
    assert.equal(failure.reproduced, true);
    assert.deepEqual(
      failure.violation?.violations.map((violation) => violation.invariant),
      ["rwo-single-attach"],
    );
    assert.match(failure.violation?.violations[0]?.message ?? "", /attached read-write to 2 nodes \(node-a, node-b\)/);
    assert.ok(failure.shrunk.length >= 1 && failure.shrunk.length < failure.found.length, "shrinking removed a fault");
    // The volume's node had to go away for the pod to move: every fault kept is on node-a.
    assert.ok(
      failure.shrunk.every((entry) => entry.params.node === "node-a"),
      JSON.stringify(failure.shrunk),
    );

    // The printed command, split as a shell would, reads back to the same run...
    const [kvol, ...args] = shellWords(failure.replayCommand);
    assert.equal(kvol, "kvol");
    assert.deepEqual(args.slice(0, 2), ["sim", "explore"]);
    const replay = await parseExploreArguments(args.slice(2));
    assert.ok(typeof replay !== "string" && replay.mode === "replay", String(replay));
    assert.equal(replay.seed, failure.seed);
    assert.equal(replay.brokenMultiAttach, true);
    assert.equal(replay.untilMs, untilMs);
    const schedule = parseFaultSchedule(replay.schedule, "--replay");
    assert.deepEqual(schedule, failure.shrunk);

    // ...which breaks the same invariant at the same moment, and needs every fault it keeps.
    const replayOptions = { seed: replay.seed, untilMs, ...brokenController };
    const replayed = await runScenario(scenario, { ...replayOptions, extraFaults: schedule });
    assert.deepEqual(replayed.violation, failure.violation);
    for (let index = 0; index < schedule.length; index++) {
      const oneLess = schedule.filter((_, kept) => kept !== index);
      const outcome = await runScenario(scenario, { ...replayOptions, extraFaults: oneLess });
      assert.equal(outcome.violation, undefined, `the violation needs ${JSON.stringify(schedule[index])}`);
    }
  });

  it("finds no violation with the real controller on the same seeds", async () => {
    const scenario = loadScenarioFile(fixture);
    const result = await exploreScenario(scenarioRuns(scenario, { untilMs }), {
      file: fixture,
      firstSeed,
      seeds,
      catalogue: nodeFaults,
    });
    assert.equal(result.failure, undefined, result.failure?.replayCommand);
    assert.equal(result.seedsRun, seeds);
  });
});
