import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { faultNamed } from "../sim/faults/catalogue.ts";
import type { CommandIo } from "./command-io.ts";
import { faultParams, parseFaultArguments, runFaultCommand } from "./fault-command.ts";

function capture(): { io: CommandIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (t) => out.push(t), stderr: (t) => err.push(t), stopRequested: () => new Promise(() => undefined) },
    out,
    err,
  };
}

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
    const listed = capture();
    assert.equal(await runFaultCommand(["--list"], listed.io), 0);
    assert.match(listed.out.join(""), /node-power-off +.+\n +parameters: node/);

    const dir = mkdtempSync(join(tmpdir(), "kvol-fault-"));
    try {
      const missing = capture();
      assert.equal(await runFaultCommand(["node-power-off", "node-2", "--data-dir", dir], missing.io), 1);
      assert.match(missing.err.join(""), /no kubeconfig at .*kubeconfig: start the cluster with `kvol up` first/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
