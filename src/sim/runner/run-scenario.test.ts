import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { brokenMultiAttachPolicy } from "../../controllers/attachdetach/testing/broken-multi-attach-policy.ts";
import { loadScenarioFile, parseScenario } from "../scenario/load.ts";
import { runScenario } from "./run-scenario.ts";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures");
const fixture = (name: string) => loadScenarioFile(join(fixtures, name));

describe("running a scenario", () => {
  it("passes when every expectation holds, with a timeline of actions and Events", async () => {
    const result = await runScenario(fixture("passing.yaml"));
    assert.deepEqual(
      result.verdicts.filter((verdict) => verdict.status !== "passed"),
      [],
    );
    assert.equal(result.passed, true);
    assert.equal(result.seed, 5);
    assert.equal(result.endMs, 120_000);
    const actions = result.timeline.filter((entry) => entry.component === "scenario");
    assert.deepEqual(
      actions.map((entry) => [entry.atMs, entry.object, entry.message]),
      [
        [0, "manifests/app-with-claim.yaml", "apply: PersistentVolumeClaim default/data-app, Pod default/app"],
        [30_000, "pod default/app", "write 5 bytes to hello.txt in volume data"],
        [40_000, "node node-a", "cordon"],
        [60_000, "pod default/app", "delete (the operator deletes the pod)"],
      ],
    );
    const scheduled = result.timeline.find((entry) => entry.message.startsWith("Scheduled:"));
    assert.deepEqual(scheduled && [scheduled.component, scheduled.object], ["default-scheduler", "pod default/app"]);
    const times = result.timeline.map((entry) => entry.atMs);
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
      "the timeline is in time order",
    );
  });

  it("fails each expectation that does not hold, saying what was seen", async () => {
    const result = await runScenario(fixture("failing.yaml"));
    assert.equal(result.passed, false);
    assert.deepEqual(
      result.verdicts.map((verdict) => [verdict.kind, verdict.status, verdict.atMs, verdict.line]),
      [
        ["eventually", "failed", 100, 19],
        ["eventually", "failed", 20_000, 21],
        ["never", "failed", 0, 23],
        ["event", "failed", 60_000, 24],
        ["event", "failed", 30_000, 25],
        ["final", "failed", 60_000, 26],
        ["eventually", "passed", result.verdicts[6]?.atMs, 27],
      ],
    );
    assert.equal(result.verdicts[0]?.detail, "did not hold by 00:00:00.100");
    assert.match(
      result.verdicts[3]?.detail ?? "",
      /^recorded 1 time, expected 2 times \(first at 00:00:01.000: Normal Scheduled: /,
    );
    assert.equal(result.verdicts[4]?.detail, "no matching Event by 00:00:30.000");
    assert.ok((result.verdicts[6]?.atMs ?? 0) > 0);
  });

  it("stops at an invariant violation and reports it, leaving open expectations undecided", async () => {
    const result = await runScenario(fixture("multi-attach.yaml"), {
      clusterOptions: { multiAttachPolicy: brokenMultiAttachPolicy },
    });
    assert.equal(result.passed, false);
    assert.ok(result.violation, "a violation is reported");
    assert.deepEqual(
      [...new Set(result.violation.violations.map((violation) => violation.invariant))],
      ["rwo-single-attach"],
    );
    assert.equal(result.endMs, result.violation.atMs, "the run stopped at the violation");
    assert.ok(
      result.endMs >= 45_000 && result.endMs < 90_000,
      `stopped at ${result.endMs} ms, after the second pod came`,
    );
    assert.ok(result.violation.history.length > 0, "the objects' recent history comes with it");
    const statusOf = (kind: string) => result.verdicts.find((verdict) => verdict.kind === kind)?.status;
    assert.equal(statusOf("never-violated"), "failed");
    assert.equal(statusOf("never"), "not decided");
  });

  it("with the Multi-Attach check in place, the same scenario passes", async () => {
    const result = await runScenario(fixture("multi-attach.yaml"));
    assert.equal(result.violation, undefined);
    assert.deepEqual(
      result.verdicts.map((verdict) => verdict.status),
      ["passed", "passed", "passed", "passed"],
    );
  });

  it("checks only the invariants the scenario names: a double attach it does not select does not stop it", async () => {
    const path = join(fixtures, "multi-attach.yaml");
    const text = readFileSync(path, "utf8").replace(
      "never: { invariant: rwo-single-attach }",
      "never: { invariant: bytes-never-lost }",
    );
    const scenario = parseScenario(text, { file: path });
    const result = await runScenario(scenario, { clusterOptions: { multiAttachPolicy: brokenMultiAttachPolicy } });
    assert.equal(result.violation, undefined, "rwo-single-attach is not among the scenario's invariants");
    assert.equal(result.endMs, scenario.untilMs, "the run went on to its end");
    assert.equal(result.verdicts.find((verdict) => verdict.kind === "never-violated")?.status, "passed");
  });

  it("injects extra faults and heals them at the times given", async () => {
    const result = await runScenario(fixture("passing.yaml"), {
      untilMs: 90_000,
      extraFaults: [{ atMs: 20_000, fault: "node-power-off", params: { node: "node-a" }, healAtMs: 50_000 }],
    });
    assert.equal(result.endMs, 90_000);
    const faults = result.timeline.filter(
      (entry) => entry.component === "scenario" && /^(fault|heal) /.test(entry.message),
    );
    assert.deepEqual(
      faults.map((entry) => [entry.atMs, entry.object, entry.message]),
      [
        [20_000, "node node-a", "fault node-power-off node=node-a"],
        [50_000, "node node-a", "heal node-power-off node=node-a"],
      ],
    );
    const [failedStep] = result.verdicts;
    assert.deepEqual(
      failedStep && [failedStep.kind, failedStep.status, failedStep.atMs, failedStep.line],
      ["step", "failed", 30_000, 15],
      "the write to the pod on the powered-off node failed, and the run went on",
    );
    assert.equal(result.passed, false);
  });
});
