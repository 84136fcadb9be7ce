/**
 * On a real Linux host: the cleanup of an orphaned pod directory never descends into a mount point
 * below it, even a bind mount from the same filesystem (same st_dev, only the mount table shows it).
 * Runs in a private mount namespace, as root.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { LinuxHost } from "../../host/linux/linux-host.ts";
import { inPrivateMountNamespace } from "../../host/linux/private-mount-namespace.ts";
import { makeScratchDir, removeScratchDir } from "../../host/linux/scratch-dir.ts";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { cleanupOrphanedPodDirs } from "./orphaned-pod-dirs.ts";

function run(command: string, ...args: string[]): void {
  const result = spawnSync(command, args, { encoding: "utf8" });
  assert.equal(result.status, 0, `${command} ${args.join(" ")}: ${result.stderr}`);
}

inPrivateMountNamespace(import.meta.filename, "orphaned pod directories on a Linux host", () => {
  let scratch = "";
  before(async () => {
    scratch = await makeScratchDir("orphan-dirs");
  });
  after(async () => {
    await removeScratchDir(scratch);
  });

  test("a bind mount inside an orphaned pod directory is not descended into; its source's files survive", async () => {
    const rootDir = join(scratch, "kubelet");
    const uid = "0b1e7c3a-orphan";
    const podDir = join(rootDir, "pods", uid);
    const source = join(scratch, "precious");
    const target = join(podDir, "containers/app/bound");
    mkdirSync(source, { recursive: true });
    writeFileSync(join(source, "data.txt"), "do not delete");
    mkdirSync(target, { recursive: true });
    mkdirSync(join(podDir, "volumes"), { recursive: true });
    writeFileSync(join(podDir, "etc-hosts"), "127.0.0.1 localhost\n");
    mkdirSync(join(podDir, "plugins/some-plugin"), { recursive: true });
    run("mount", "--bind", source, target);
    try {
      const logs = new MemorySink();
      const errors = await cleanupOrphanedPodDirs(
        {
          host: new LinuxHost({ nodeName: "node-1" }),
          rootDir,
          logger: new Logger({ clock: new VirtualClock(), sink: logs, level: "debug" }),
          podVolumesExist: async () => false,
        },
        new Set(),
      );
      assert.deepEqual(errors, [
        `orphaned pod "${uid}" found, but error occurred when trying to remove subdir "${join(podDir, "containers")}": cannot delete directory ${target}: it is a mount point`,
      ]);
      assert.equal(readFileSync(join(source, "data.txt"), "utf8"), "do not delete");
      assert.equal(readFileSync(join(target, "data.txt"), "utf8"), "do not delete", "the mount is left as it was");
      assert.equal(existsSync(join(podDir, "etc-hosts")), false, "the rest of the pod directory is removed");
      assert.equal(existsSync(join(podDir, "plugins")), false);
      assert.equal(existsSync(podDir), true, "the pod directory stays while something is mounted below it");
    } finally {
      run("umount", target);
    }
    const errorsAfterUnmount = await cleanupOrphanedPodDirs(
      {
        host: new LinuxHost({ nodeName: "node-1" }),
        rootDir,
        logger: new Logger({ clock: new VirtualClock(), sink: new MemorySink(), level: "debug" }),
        podVolumesExist: async () => false,
      },
      new Set(),
    );
    assert.deepEqual(errorsAfterUnmount, []);
    assert.equal(existsSync(podDir), false, "once unmounted, the directory goes");
    assert.equal(readFileSync(join(source, "data.txt"), "utf8"), "do not delete");
  });
});
