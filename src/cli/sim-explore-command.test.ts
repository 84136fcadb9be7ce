import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseExploreArguments } from "./sim-explore-command.ts";

describe("kvol sim explore arguments", () => {
  it("reads an exploration", async () => {
    const parsed = await parseExploreArguments([
      "scenarios/000.yaml",
      "--seeds",
      "1000",
      "--first-seed",
      "5",
      "--max-faults",
      "2",
      "--faults",
      "node-power-off, kubelet-restart",
      "--until",
      "5m",
    ]);
    assert.deepEqual(parsed, {
      file: "scenarios/000.yaml",
      brokenMultiAttach: false,
      untilMs: 300_000,
      untilText: "5m",
      mode: "explore",
      seeds: 1000,
      quiet: false,
      firstSeed: 5,
      maxFaults: 2,
      faults: ["node-power-off", "kubelet-restart"],
    });
  });

  it("reads a replay", async () => {
    const schedule = '[{"atMs":1000,"fault":"kubelet-restart","params":{"node":"node-a"}}]';
    const parsed = await parseExploreArguments(["f.yaml", "--seed", "7", "--replay", schedule, "--json"]);
    assert.deepEqual(parsed, {
      file: "f.yaml",
      brokenMultiAttach: false,
      mode: "replay",
      seed: 7,
      schedule,
      json: true,
    });
  });

  it("says what is wrong with bad arguments", async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /name the scenario FILE/],
      [["a.yaml", "b.yaml", "--seeds", "1"], /one scenario file; unexpected "b.yaml"/],
      [["a.yaml"], /--seeds N/],
      [["a.yaml", "--seeds", "0"], /--seeds: "0" is not a whole number >= 1/],
      [["a.yaml", "--seeds", "ten"], /--seeds: "ten" is not a whole number/],
      [["a.yaml", "--seed", "3"], /--seed replays one run with --replay/],
      [["a.yaml", "--replay", "[]"], /--replay needs the --seed/],
      [["a.yaml", "--replay", "[]", "--seeds", "2"], /give --seed N, not --seeds/],
      [["a.yaml", "--seeds", "2", "--until", "soon"], /--until: "soon" is not a duration/],
      [["a.yaml", "--seeds", "2", "--bogus"], /Unknown option '--bogus'/],
    ];
    for (const [args, message] of cases) {
      const parsed = await parseExploreArguments(args);
      assert.equal(typeof parsed, "string", JSON.stringify(args));
      assert.match(parsed as string, message);
    }
  });
});
