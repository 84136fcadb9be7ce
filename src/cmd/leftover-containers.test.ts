import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { probeLinuxRuntime } from "../cri/linux/runtime-requirements.ts";
import { cgroupPids } from "../host/linux/cgroup.ts";
import { requireOrSkip } from "../host/linux/private-mount-namespace.ts";
import { isProcessAlive } from "../host/linux/process-state.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { removeLeftoverContainers } from "./leftover-containers.ts";

test("a restarted node agent kills the containers its predecessor left and removes their cgroups and layers", async (t) => {
  const probe = await probeLinuxRuntime();
  if (!requireOrSkip(t, "problems" in probe ? probe.problems.join("; ") : undefined) || "problems" in probe) return;
  const clock = new RealClock();
  const nodeCgroup = join(probe.cgroup2Mount, `kvol-test-leftover-${process.pid}`);
  const containerCgroup = join(nodeCgroup, "pod-uid-1", "container-1");
  const containersDir = await mkdtemp(join(tmpdir(), "kvol-leftover-"));
  try {
    await mkdir(containerCgroup, { recursive: true });
    await mkdir(join(containersDir, "container-1/upper"), { recursive: true });
    await writeFile(join(containersDir, "container-1/upper/file"), "x");
    const orphan = spawn("/bin/sh", ["-c", `echo $$ > '${containerCgroup}/cgroup.procs' && exec sleep 3600`], {
      detached: true,
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => orphan.once("exit", resolve));
    for (let attempt = 0; attempt < 200 && (await cgroupPids(containerCgroup)).length === 0; attempt++) {
      await clock.sleep(10);
    }
    const [pid] = await cgroupPids(containerCgroup);
    assert.ok(pid !== undefined, "the leftover container runs in its cgroup");

    assert.equal(await removeLeftoverContainers(nodeCgroup, containersDir, clock), 1);
    await exited;
    assert.equal(await isProcessAlive(pid), false);
    assert.deepEqual(
      await readdir(nodeCgroup, { withFileTypes: true }).then((e) => e.filter((d) => d.isDirectory())),
      [],
    );
    assert.deepEqual(await readdir(containersDir), []);
    assert.equal(await removeLeftoverContainers(nodeCgroup, containersDir, clock), 0, "nothing left the second time");
  } finally {
    if (existsSync(nodeCgroup)) await rmdir(nodeCgroup);
    await rm(containersDir, { recursive: true, force: true });
  }
});
