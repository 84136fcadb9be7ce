/**
 * Stopping `kvol up --host linux` releases the loop devices of the disks still attached: a real
 * loop device over a sparse file of a disks directory is gone afterwards, and the file stays.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { LinuxHost } from "../host/linux/linux-host.ts";
import { requireOrSkip } from "../testing/requirements.ts";
import { releaseDiskLoopDevices } from "./release-disk-loop-devices.ts";

function loopDevicesOver(file: string): string {
  return spawnSync("losetup", ["-j", file], { encoding: "utf8" }).stdout;
}

describe("releaseDiskLoopDevices", () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-disks-"));
  after(() => {
    // A failed test may have left its loop device: release it before the file goes.
    for (const line of loopDevicesOver(join(dir, "pvc-a.img")).split("\n")) {
      const device = line.slice(0, line.indexOf(":"));
      if (device !== "") spawnSync("losetup", ["-d", device]);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("detaches every loop device over a disk of the directory and keeps the disk", async (t) => {
    const reason = process.getuid?.() !== 0 ? "loop devices need root" : undefined;
    if (!requireOrSkip(t, reason)) return;
    const attached = join(dir, "pvc-a.img");
    const idle = join(dir, "pvc-b.img");
    for (const file of [attached, idle]) assert.equal(spawnSync("truncate", ["-s", "16M", file]).status, 0);
    const setup = spawnSync("losetup", ["-f", "--show", attached], { encoding: "utf8" });
    assert.equal(setup.status, 0, setup.stderr);
    assert.match(loopDevicesOver(attached), /^\/dev\/loop\d+:/);

    const released = await releaseDiskLoopDevices(new LinuxHost({ nodeName: "test" }), dir);

    assert.deepEqual(released, [attached]);
    assert.equal(loopDevicesOver(attached), "");
    assert.equal(existsSync(attached), true, "the disk stays");
  });

  it("answers nothing for a data directory without disks", async () => {
    assert.deepEqual(await releaseDiskLoopDevices(new LinuxHost({ nodeName: "test" }), join(dir, "absent")), []);
  });
});
