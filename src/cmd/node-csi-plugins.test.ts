import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { waitFor } from "../cli/testing/wait-for.ts";
import { findCgroup2Mount } from "../host/linux/cgroup.ts";
import { readMountInfo } from "../host/linux/mount-info-reader.ts";
import { Logger, MemorySink } from "../runtime/logger.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { NodeCsiPlugins, type NodeCsiPluginsOptions } from "./node-csi-plugins.ts";

const clock = new RealClock();
const waitMs = 30_000;

describe("the CSI node plugins of a real node", () => {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kvol-node-plugins-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function plugins(script: string, logs: MemorySink, extra: Partial<NodeCsiPluginsOptions> = {}): NodeCsiPlugins {
    return new NodeCsiPlugins({
      driverNames: ["example.csi.vendor.io"],
      nodeName: "node-1",
      rootDir: join(dir, "kubelet"),
      pluginsDir: join(dir, "csi-plugins"),
      stateDirOf: (driverName) => join(dir, "csi", driverName),
      // Stands in for `kvol`: the plugin's arguments follow as $1…
      kvolCommand: ["/bin/sh", "-c", script, "kvol"],
      clock,
      logger: new Logger({ clock, sink: logs, level: "info" }),
      restartBackoff: { initialMs: 50, maxMs: 200 },
      ...extra,
    });
  }

  it("gives fuse.csi.kvol.io the API server, token file and kubelet root it re-establishes mounts from", async () => {
    const runs = join(dir, "runs");
    const node = plugins(`echo "$*" >> ${runs}; trap 'exit 0' TERM; sleep 600 & wait`, new MemorySink(), {
      driverNames: ["fuse.csi.kvol.io"],
      apiAccess: { serverUrl: "http://127.0.0.1:8080", tokenFile: "/data/node-1.token" },
    });
    await node.start();
    await waitFor("the plugin's run", () => (existsSync(runs) && readFileSync(runs, "utf8")) || undefined, waitMs);
    await node.stop();
    assert.match(
      readFileSync(runs, "utf8"),
      new RegExp(
        ` --server http://127.0.0.1:8080 --token-file /data/node-1.token --kubelet-root-dir ${dir}/kubelet\n$`,
      ),
    );
  });

  it("passes --max-volumes-per-node to every plugin and --fenceable to the disk driver's only", async () => {
    const runs = join(dir, "runs");
    const node = plugins(`echo "$*" >> ${runs}; trap 'exit 0' TERM; sleep 600 & wait`, new MemorySink(), {
      driverNames: ["hostpath.csi.kvol.io", "disk.csi.kvol.io"],
      maxVolumesPerNode: 2,
      fenceableDisks: true,
    });
    await node.start();
    await waitFor(
      "both plugins' runs",
      () => (existsSync(runs) && readFileSync(runs, "utf8").trim().split("\n").length === 2) || undefined,
      waitMs,
    );
    await node.stop();
    const lines = readFileSync(runs, "utf8").trim().split("\n").sort();
    assert.match(lines[0] ?? "", /^csi-driver disk\.csi\.kvol\.io .* --max-volumes-per-node 2 --fenceable$/);
    assert.match(lines[1] ?? "", /^csi-driver hostpath\.csi\.kvol\.io .* --max-volumes-per-node 2$/);
  });

  it("runs each plugin in a cgroup of its own and kills what the plugin left there when it exits", async (t) => {
    const cgroup2 = findCgroup2Mount(await readMountInfo());
    if (process.getuid?.() !== 0 || cgroup2 === undefined) {
      const reason = "needs root and a cgroup v2 hierarchy";
      if (process.env.CI === "true") assert.fail(reason);
      t.skip(reason);
      return;
    }
    const cgroupDir = join(cgroup2, `kvol-test-plugins-${process.pid}`);
    const leftPid = join(dir, "left.pid");
    // The plugin starts a daemon of its own (as a FUSE daemon), then dies.
    const node = plugins(`sleep 600 & echo $! > ${leftPid}; sleep 0.3; exit 1`, new MemorySink(), { cgroupDir });
    await node.start();
    const daemon = Number(
      await waitFor(
        "the daemon",
        () => (existsSync(leftPid) && readFileSync(leftPid, "utf8").trim()) || undefined,
        waitMs,
      ),
    );
    assert.equal(
      readFileSync(`/proc/${daemon}/cgroup`, "utf8").includes(`kvol-test-plugins-${process.pid}/example.csi.vendor.io`),
      true,
      "the daemon runs in the plugin's cgroup",
    );
    await waitFor(
      "the daemon killed with its plugin",
      () => (existsSync(`/proc/${daemon}`) ? undefined : true),
      waitMs,
    );
    await node.stop();
    assert.equal(existsSync(cgroupDir), false, "stop removes the plugins' cgroups");
  });

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
