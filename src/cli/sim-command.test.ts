/**
 * `kvol sim run` as a user runs it: the real binary, its output and its exit status.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseRunArguments } from "./sim-command.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const fixture = (name: string) => join("src", "sim", "runner", "fixtures", name);

interface Outcome {
  exitCode: number;
  stdout: string;
  stderr: string;
}

function kvol(...args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["bin/kvol.js", ...args], { cwd: root }, (error, stdout, stderr) => {
      const exitCode = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ exitCode, stdout, stderr });
    });
  });
}

describe("kvol sim run", () => {
  it("prints the same JSON twice for the same seed, and exits 0 when everything held", async () => {
    const args = ["sim", "run", fixture("quick.yaml"), "--json", "--seed", "9"];
    const [first, second] = await Promise.all([kvol(...args), kvol(...args)]);
    assert.equal(first.stderr, "");
    assert.equal(first.exitCode, 0);
    assert.equal(first.stdout, second.stdout, "byte-identical");
    const report = JSON.parse(first.stdout) as {
      seed: number;
      passed: boolean;
      verdicts: unknown[];
      timeline: unknown[];
    };
    assert.equal(report.seed, 9);
    assert.equal(report.passed, true);
    assert.equal(report.verdicts.length, 3);
    assert.ok(report.timeline.length > 5);
  });

  it("prints the timeline and verdicts, and exits 1 when an expectation fails", async () => {
    const { exitCode, stdout } = await kvol("sim", "run", fixture("failing.yaml"), "--until", "30s");
    assert.equal(exitCode, 1);
    assert.match(
      stdout,
      /^scenario: expectations that do not hold \(src\/sim\/runner\/fixtures\/failing.yaml, seed 5\)\n/,
    );
    assert.match(
      stdout,
      /\n00:00:01\.000 +default-scheduler +pod default\/app +Scheduled: Successfully assigned default\/app to node-a\n/,
    );
    assert.match(
      stdout,
      /\nFAIL {2}eventually pod app phase is Running within 100ms — did not hold by 00:00:00\.100 \(line 19\)\n/,
    );
    assert.match(stdout, /\nFAILED: \d+ of 7 expectations failed \(ended at 00:00:30\.000\)\n$/);
  });

  it("exits 2 with the file, line and field of a bad scenario, and no stack trace", async () => {
    const { exitCode, stdout, stderr } = await kvol("sim", "run", fixture("invalid-duration.yaml"));
    assert.equal(exitCode, 2);
    assert.equal(stdout, "");
    assert.equal(
      stderr,
      `kvol sim run: ${fixture("invalid-duration.yaml")}:8: timeline[1].at: "5x" is not a duration (use 30s, 2m, 1h5m)\n`,
    );
  });

  it("exits 2 on a usage error", async () => {
    const { exitCode, stderr } = await kvol("sim", "run");
    assert.equal(exitCode, 2);
    assert.match(
      stderr,
      /^kvol sim run: name at least one scenario file\n\nUsage:\n {2}kvol sim run FILE… \[--seed N\] \[--json\] \[--until T\] \[--html OUT\.html\]\n/,
    );
  });

  it("says which option is wrong", async () => {
    const errors = await Promise.all([
      parseRunArguments(["a.yaml", "--seed", "many"]),
      parseRunArguments(["a.yaml", "--until", "soon"]),
      parseRunArguments(["a.yaml", "--colour"]),
    ]);
    assert.deepEqual(errors.slice(0, 2), [
      '--seed: "many" is not a whole number',
      '--until: "soon" is not a duration (use 30s, 2m, 1h5m)',
    ]);
    assert.match(String(errors[2]), /Unknown option '--colour'/);
    assert.deepEqual(await parseRunArguments(["a.yaml", "b.yaml", "--seed", "3", "--until", "2m", "--json"]), {
      files: ["a.yaml", "b.yaml"],
      json: true,
      seed: 3,
      untilMs: 120_000,
    });
  });
});
