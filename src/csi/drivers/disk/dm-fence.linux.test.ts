/**
 * Node fencing of a real disk: a loop disk attached through its device-mapper device
 * (`/dev/mapper/kvol-<node>-<disk>`), formatted and mounted; the fence switches the device to the
 * error target, so a write in the mounted filesystem fails with EIO; the unfence swaps the linear
 * table back and the disk works again; detaching leaves no dm device and no loop device. Needs root,
 * the loop driver, dmsetup and the kernel's device-mapper driver; outside CI it skips with the
 * missing piece printed, under CI=true it must run — unless the kernel itself has no device-mapper
 * driver (none registered after `.ci/run`'s `modprobe dm_mod`), which no install can add:
 * then it skips with that reason printed, under CI too.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { PersistentVolume } from "../../../api/objects.ts";
import { LinuxHost } from "../../../host/linux/linux-host.ts";
import { inPrivateMountNamespace } from "../../../host/linux/private-mount-namespace.ts";
import { makeScratchDir, mountsUnder, removeScratchDir } from "../../../host/linux/scratch-dir.ts";
import { requireOrSkip } from "../../../testing/requirements.ts";
import { deviceMapperUnavailable } from "./device-mapper.ts";
import { DmDiskFencer } from "./dm-fencer.ts";
import { LoopDiskBackend } from "./loop-disk-backend.ts";

const diskId = "fence-1";
const nodeName = "node-a";
const dmName = `kvol-${nodeName}-${diskId}`;
const mebibyteBytes = 1024 * 1024;

function run(command: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(command, args, { encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** Writes 4 KiB into `file` bypassing the page cache, so the write reaches the device now. */
function directWrite(file: string): { status: number | null; output: string } {
  return run("dd", ["if=/dev/zero", `of=${file}`, "bs=4096", "count=1", "oflag=direct,sync", "conv=notrunc"]);
}

async function missingRequirement(host: LinuxHost): Promise<string | undefined> {
  if (!existsSync("/dev/loop-control")) return "/dev/loop-control is missing: the kernel has no loop driver here";
  for (const tool of ["losetup", "mkfs.ext4", "dd", "blockdev", "dmsetup"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return `${tool} is not on PATH`;
  }
  const dm = await deviceMapperUnavailable(host);
  return dm === undefined ? undefined : `device-mapper is unavailable: ${dm}`;
}

/** The kernel registers its device-mapper driver in /sys/class/misc; a /dev/mapper/control node alone may be a leftover. */
function missingKernelDriver(): string | undefined {
  if (existsSync("/sys/class/misc/device-mapper")) return undefined;
  return "this kernel has no device-mapper driver (no /sys/class/misc/device-mapper, and modprobe dm_mod cannot load it)";
}

const title = "node fencing of a real disk through device-mapper";
const kernelGap = missingKernelDriver();
if (kernelGap !== undefined) {
  console.log(`skipping "${title}": ${kernelGap}`);
  test(title, { skip: kernelGap }, () => undefined);
} else
  inPrivateMountNamespace(import.meta.filename, title, () => {
    const host = new LinuxHost({ nodeName });
    let scratch = "";
    let skipReason: string | undefined;
    let disks: LoopDiskBackend;

    before(async () => {
      skipReason = await missingRequirement(host);
      scratch = await makeScratchDir("dm-fence");
      disks = new LoopDiskBackend({ host, disksDir: join(scratch, "disks"), fenceable: true });
    });

    after(async () => {
      // Mounts die with the namespace; dm and loop devices are the machine's: release any a failure left.
      for (const mountPoint of (await mountsUnder(scratch)).reverse()) spawnSync("umount", ["-l", mountPoint]);
      spawnSync("dmsetup", ["remove", "--retry", dmName]);
      for (const line of run("losetup", ["-j", join(scratch, "disks", `${diskId}.img`)]).output.split("\n")) {
        const device = line.slice(0, line.indexOf(":"));
        if (device.startsWith("/dev/loop")) spawnSync("losetup", ["-d", device]);
      }
      await removeScratchDir(scratch);
    });

    test("a fenced disk fails every write with EIO, works again once unfenced, and leaves nothing behind", async (t) => {
      if (!requireOrSkip(t, skipReason)) return;
      const pv: PersistentVolume = {
        apiVersion: "v1",
        kind: "PersistentVolume",
        metadata: { name: "pv-fence" },
        spec: { csi: { driver: "disk.csi.kvol.io", volumeHandle: diskId } },
      };
      const fencer = new DmDiskFencer(host, disks);
      assert.equal(fencer.covers(pv), true);
      assert.equal(await fencer.unavailable(), undefined);

      await disks.createDisk(diskId, 64 * mebibyteBytes, {});
      const device = await disks.attach(diskId, nodeName, {});
      assert.equal(device, `/dev/mapper/${dmName}`);
      assert.equal(run("mkfs.ext4", ["-q", "-F", device]).status, 0);
      const mountPoint = join(scratch, "mnt");
      await mkdir(mountPoint);
      assert.equal(run("mount", [device, mountPoint]).status, 0);
      const file = join(mountPoint, "rows");
      assert.equal(directWrite(file).status, 0, "the disk takes writes before the fence");

      const fence = await fencer.fence(nodeName);
      assert.equal(fence.confirmed, true, fence.detail);
      assert.deepEqual(await fencer.heldBy(nodeName), [device], "the fenced node still holds its device");
      const refused = directWrite(file);
      assert.notEqual(refused.status, 0, "a write on the fenced disk fails");
      assert.match(refused.output, /Input\/output error/);

      assert.equal(run("umount", [mountPoint]).status, 0);
      await fencer.unfence(nodeName);
      assert.match(run("dmsetup", ["table", dmName]).output, /^0 \d+ linear /);
      // ext4 may have recorded the failed writes; a check makes it mountable again, as after any I/O error.
      assert.ok((run("e2fsck", ["-fy", device]).status ?? 8) < 4);
      assert.equal(run("mount", [device, mountPoint]).status, 0);
      assert.equal(directWrite(file).status, 0, "the disk takes writes again once unfenced");
      assert.equal(run("umount", [mountPoint]).status, 0);

      await disks.detach(diskId, nodeName);
      assert.deepEqual(await fencer.heldBy(nodeName), []);
      assert.doesNotMatch(run("dmsetup", ["ls"]).output, new RegExp(dmName));
      assert.deepEqual(await disks.loopDevicesOf(diskId), []);
      await disks.deleteDisk(diskId);
    });
  });
