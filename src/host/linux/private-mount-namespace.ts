/**
 * Test support: runs a test file's real-mount tests inside a private mount namespace, so whatever
 * they mount disappears with the namespace even if a test fails halfway. The file registers one
 * outer test that re-executes the file under `unshare --mount --propagation private`; inside, the
 * file's own tests run and the outer test passes only when all of them pass.
 *
 * Outside CI the outer test skips, with the reason, when not root or when unshare is refused;
 * under CI=true it fails instead, so a CI machine that cannot run them is noticed.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { requireOrSkip, underCi } from "../../testing/requirements.ts";

/** The re-executed file's output is kept up to this size, for the failure message. */
const maxTestOutputBytes = 64 * 1024 * 1024;

/** Set in the environment of the re-executed file. */
const insideNamespaceEnvName = "KVOL_INSIDE_PRIVATE_MOUNT_NAMESPACE";

function isInsidePrivateMountNamespace(): boolean {
  return process.env[insideNamespaceEnvName] === "1";
}

/** Why tests that need root and real mounts cannot run here, or undefined when they can. */
function whyRealMountTestsCannotRun(): string | undefined {
  if (process.getuid?.() !== 0) return "real-mount tests need root (uid 0)";
  const probe = spawnSync("unshare", ["--mount", "--propagation", "private", "true"], { encoding: "utf8" });
  if (probe.error !== undefined) return `unshare cannot run: ${probe.error.message}`;
  if (probe.status !== 0) return `unshare --mount is refused here: ${probe.stderr.trim()}`;
  return undefined;
}

export { requireOrSkip };

/**
 * Inside the namespace, calls `defineTests`; outside, registers one test that runs `testFile` in a
 * new private mount namespace and reports its result.
 */
export function inPrivateMountNamespace(testFile: string, title: string, defineTests: () => void): void {
  if (isInsidePrivateMountNamespace()) {
    defineTests();
    return;
  }
  test(`${title} (in a private mount namespace)`, (t) => {
    if (!requireOrSkip(t, whyRealMountTestsCannotRun())) return;
    // The runner tells its child files to report in its own binary protocol; this run reports as text.
    const { NODE_TEST_CONTEXT: _runnerProtocol, ...env } = process.env;
    const run = spawnSync(
      "unshare",
      ["--mount", "--propagation", "private", process.execPath, "--import", "tsx", "--test-reporter=tap", testFile],
      { env: { ...env, [insideNamespaceEnvName]: "1" }, encoding: "utf8", maxBuffer: maxTestOutputBytes },
    );
    const output = `${run.stdout}${run.stderr}`;
    const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(output)?.[1] ?? Number.NaN);
    t.diagnostic(`inside: ${count("tests")} tests, ${count("pass")} passed, ${count("skipped")} skipped`);
    assert.equal(run.status, 0, `tests in the private mount namespace failed:\n${output}`);
    assert.equal(count("fail"), 0, `tests in the private mount namespace failed:\n${output}`);
    assert.equal(count("cancelled"), 0, `tests in the private mount namespace were cancelled:\n${output}`);
    assert.ok(count("tests") > 0, `no tests ran in the private mount namespace:\n${output}`);
    // Under CI a skip inside would pass this outer test unseen; every test inside must have run.
    if (underCi) assert.equal(count("skipped"), 0, `tests in the private mount namespace were skipped:\n${output}`);
  });
}
