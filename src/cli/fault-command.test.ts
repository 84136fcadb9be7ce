import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RealClock } from "../runtime/real-clock.ts";
import { faultNamed } from "../sim/faults/catalogue.ts";
import { capturedIo, startCliTestServer } from "./client/testing/cli-test-support.ts";
import { faultParams, parseFaultArguments, runFaultCommand } from "./fault-command.ts";

describe("kvol fault", () => {
  it("fills required parameters from bare values in order, and takes key=value for the rest", () => {
    const powerOff = faultNamed("node-power-off");
    assert.deepEqual(faultParams(powerOff, ["node-2"]), { node: "node-2" });
    assert.deepEqual(faultParams(powerOff, ["node=node-3"]), { node: "node-3" });
    assert.throws(
      () => faultParams(powerOff, ["node-2", "node-3"]),
      /too many values \(node-2 node-3\); its parameters are node; write key=value/,
    );
  });

  it("names an unknown fault and lists the known ones", () => {
    assert.throws(
      () => parseFaultArguments(["no-such-fault"]),
      /unknown fault "no-such-fault"; known faults: .*node-power-off/,
    );
    assert.throws(() => parseFaultArguments([]), /the fault NAME is missing/);
  });

  it("prints the catalogue with --list, and explains a cluster that is not running", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvol-fault-"));
    try {
      const env = { HOME: dir, KVOL_DATA_DIR: dir };
      const listed = capturedIo(env, new RealClock());
      assert.equal(await runFaultCommand(["--list"], listed), 0);
      assert.match(listed.stdout, /node-power-off +.+\n +parameters: node/);

      const missing = capturedIo(env, new RealClock());
      assert.equal(await runFaultCommand(["node-power-off", "node-2"], missing), 1);
      assert.equal(
        missing.stderr,
        `error: no kubeconfig at ${join(dir, "kubeconfig")}: start a cluster with \`kvol up\`, or pass --kubeconfig or set KUBECONFIG\n`,
      );
      const both = capturedIo(env, new RealClock());
      assert.equal(
        await runFaultCommand(["node-power-off", "node-2", "--kubeconfig", "k", "--data-dir", dir], both),
        2,
      );
      assert.match(both.stderr, /^error: --kubeconfig and --data-dir both name the cluster; pass one of them\n/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says when the cluster is not one kvol up runs", async () => {
    const server = await startCliTestServer();
    try {
      const io = server.io();
      assert.equal(await runFaultCommand(["node-power-off", "node-2"], io), 1);
      assert.match(
        io.stderr,
        /^error: the cluster at http:\/\/127\.0\.0\.1:\d+ has no \/apis\/kvol\.io\/v1alpha1\/faults endpoint: it is not a cluster `kvol up` runs/,
      );
    } finally {
      await server.close();
    }
  });
});
