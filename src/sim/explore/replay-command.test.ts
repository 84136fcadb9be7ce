import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import { type FaultSchedule, parseFaultSchedule } from "./fault-schedule.ts";
import { replayArguments, replayCommand, shellQuote } from "./replay-command.ts";

const schedule: FaultSchedule = [
  { atMs: 65_000, fault: "node-power-off", params: { node: "node-a" }, healAtMs: 400_000 },
  { atMs: 70_000, fault: "api-latency", params: { delay: "2s", note: "it's slow" } },
];

describe("replay command", () => {
  it("prints a line a shell splits back into the same arguments, whose schedule reads back unchanged", () => {
    const line = replayCommand("scenarios/004 rbd.yaml", 40, schedule);
    assert.match(line, /^kvol sim explore 'scenarios\/004 rbd.yaml' --seed 40 --replay '\[/);
    const words = execFileSync("sh", ["-c", `printf '%s\\n' ${line.slice("kvol ".length)}`], { encoding: "utf8" })
      .trimEnd()
      .split("\n");
    assert.deepEqual(words, replayArguments("scenarios/004 rbd.yaml", 40, schedule));
    assert.deepEqual(parseFaultSchedule(words.at(-1) ?? "", "--replay"), schedule);
  });

  it("leaves plain words unquoted", () => {
    assert.equal(shellQuote("scenarios/000-web.yaml"), "scenarios/000-web.yaml");
    assert.equal(shellQuote(""), "''");
  });
});
