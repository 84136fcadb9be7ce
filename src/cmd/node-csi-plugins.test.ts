import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { waitFor } from "../cli/testing/wait-for.ts";
import { Logger, MemorySink } from "../runtime/logger.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { NodeCsiPlugins } from "./node-csi-plugins.ts";

const clock = new RealClock();
const waitMs = 30_000;

describe("the CSI node plugins of a real node", () => {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kvol-node-plugins-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function plugins(script: string, logs: MemorySink): NodeCsiPlugins {
    return new NodeCsiPlugins({
      driverNames: ["example.csi.vendor.io"],
      nodeName: "node-1",
      rootDir: join(dir, "kubelet"),
      pluginsDir: join(dir, "csi-plugins"),
      stateDir: join(dir, "csi"),
      // Stands in for `kvol`: the plugin's arguments follow as $1…
      kvolCommand: ["/bin/sh", "-c", script, "kvol"],
      clock,
      logger: new Logger({ clock, sink: logs, level: "info" }),
      restartBackoff: { initialMs: 50, maxMs: 200 },
    });
  }

  it("starts a plugin that exited again after the back-off, and no more once stopped", async () => {
    const runs = join(dir, "runs");
    const logs = new MemorySink();
    const node = plugins(`echo "$*" >> ${runs}; exit 3`, logs);
    await node.start();
    await waitFor(
      "five runs",
      () => (existsSync(runs) && readFileSync(runs, "utf8").split("\n").length > 5) || undefined,
      waitMs,
    );
    const firstRun = readFileSync(runs, "utf8").split("\n")[0] ?? "";
    assert.equal(
      firstRun,
      `csi-driver example.csi.vendor.io --endpoint unix://${dir}/kubelet/plugins/example.csi.vendor.io/csi.sock ` +
        `--node-id node-1 --state-dir ${dir}/csi/example.csi.vendor.io --registration-dir ${dir}/kubelet/plugins_registry`,
    );
    const backoffs = logs.records
      .filter((record) => record.message.startsWith("CSI node plugin exited"))
      .map((record) => record.fields.find(([key]) => key === "backoffMs")?.[1]);
    assert.deepEqual(backoffs.slice(0, 4), ["50", "100", "200", "200"], "doubling up to the maximum");
    await node.stop();
    const count = readFileSync(runs, "utf8").length;
    await clock.sleep(500);
    assert.equal(readFileSync(runs, "utf8").length, count, "no restart after stop");
  });

  it("stops a running plugin on stop and removes its pid file", async () => {
    const logs = new MemorySink();
    const node = plugins("trap 'exit 0' TERM; sleep 600 & wait", logs);
    await node.start();
    const pid = node.pids().get("example.csi.vendor.io");
    assert.ok(pid !== undefined);
    assert.equal(readFileSync(join(dir, "csi-plugins", "example.csi.vendor.io.pid"), "utf8"), `${pid}\n`);
    await node.stop();
    assert.equal(existsSync(join(dir, "csi-plugins", "example.csi.vendor.io.pid")), false);
    assert.throws(() => process.kill(pid, 0), /ESRCH/);
  });
});
