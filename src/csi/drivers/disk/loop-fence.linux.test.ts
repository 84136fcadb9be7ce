/**
 * Node fencing of a real disk through its node's own loop device, on this machine's kernel: an ext4
 * mounted on node-a's device takes a writer that appends a 4 KiB record and fsyncs it in a loop;
 * the fence moves the device's offset past the disk's end, so the writer's next write or fsync
 * fails and the image's bytes stop changing; node-a's detach while its stale mount still holds the
 * device is deferred (the kernel releases it when the mount goes); node-b attaches its own device
 * and reads every record acknowledged before the fence. Then the stale mount goes, nothing is held,
 * the unfence, and node-a works again. Also: a killed fenceable attach leaves a device the next
 * attach of that node reuses, never two for one node, and delete leaves no device and no link.
 *
 * Needs root, the loop driver, losetup, perl, mkfs.ext4; outside CI it skips with the missing piece
 * printed, under CI=true it must run.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { PersistentVolume } from "../../../api/objects.ts";
import { waitFor } from "../../../cli/testing/wait-for.ts";
import { LinuxHost } from "../../../host/linux/linux-host.ts";
import { inPrivateMountNamespace } from "../../../host/linux/private-mount-namespace.ts";
import { makeScratchDir, mountsUnder, removeScratchDir } from "../../../host/linux/scratch-dir.ts";
import { requireOrSkip } from "../../../testing/requirements.ts";
import { LoopDiskBackend } from "./loop-disk-backend.ts";
import { LoopDiskFencer } from "./loop-fencer.ts";

const mebibyteBytes = 1024 * 1024;
const recordBytes = 4096;
/** The writer's bound: 4,000 records of 4 KiB fit in a 64 MiB ext4. */
const maxRecords = 4000;
const writerTimeoutMs = 120_000;
const killedAttachFixture = join(import.meta.dirname, "killed-attach.fixture.ts");

function run(command: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(command, args, { encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function ok(command: string, args: string[]): string {
  const result = run(command, args);
  assert.equal(result.status, 0, `${command} ${args.join(" ")}: ${result.output}`);
  return result.output;
}

function missingRequirement(): string | undefined {
  if (!existsSync("/dev/loop-control")) return "/dev/loop-control is missing: the kernel has no loop driver here";
  for (const tool of ["losetup", "perl", "mkfs.ext4", "dd", "e2fsck"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return `${tool} is not on PATH`;
  }
  return undefined;
}

/** The sysfs size of a loop device, in 512-byte sectors. */
function sectors(device: string): number {
  return Number(readFileSync(`/sys/block/${device.slice("/dev/".length)}/size`, "utf8").trim());
}

function sha256(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

/**
 * Appends record N (4 KiB: "record N" and padding) and fsyncs it (dd conv=fsync), then prints
 * "acked N"; the first failure prints "failed N" and ends it.
 */
function startWriter(file: string): { child: ChildProcess; output: () => string } {
  const script = `i=0
while [ "$i" -lt ${maxRecords} ]; do
  i=$((i+1))
  printf '%-${recordBytes - 1}s\\n' "record $i" | dd of="$1" bs=${recordBytes} oflag=append conv=notrunc,fsync status=none || { echo "failed $i"; exit 1; }
  echo "acked $i"
  sleep 0.01
done`;
  const child = spawn("sh", ["-c", script, "writer", file], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return { child, output: () => output };
}

function lastAcked(output: string): number {
  const acked = [...output.matchAll(/^acked (\d+)$/gm)].map((match) => Number(match[1]));
  return acked.at(-1) ?? 0;
}

const title = "node fencing of a real disk through its node's own loop device";
inPrivateMountNamespace(import.meta.filename, title, () => {
  let scratch = "";
  let skipReason: string | undefined;
  let disksDir = "";
  const writers: ChildProcess[] = [];

  before(async () => {
    skipReason = missingRequirement();
    scratch = await makeScratchDir("loop-fence");
    disksDir = join(scratch, "disks");
  });

  after(async () => {
    for (const writer of writers) if (writer.exitCode === null) writer.kill("SIGKILL");
    // Mounts die with the namespace, but a mount holds its loop device until it goes: unmount first.
    for (const mountPoint of (await mountsUnder(scratch)).reverse()) spawnSync("umount", ["-l", mountPoint]);
    // Every device over a disk of this test, whichever node's link it was bound over (same inode).
    for (const image of run("sh", ["-c", `ls ${disksDir}/*.img 2>/dev/null`]).output.split("\n")) {
      if (image === "") continue;
      for (const line of run("losetup", ["-j", image]).output.split("\n")) {
        const device = line.slice(0, line.indexOf(":"));
        if (device.startsWith("/dev/loop")) spawnSync("losetup", ["-d", device]);
      }
    }
    await removeScratchDir(scratch);
  });

  test("a fenced node's writes fail at once, another node reads every acknowledged record, the node returns once let go", async (t) => {
    if (!requireOrSkip(t, skipReason)) return;
    const host = new LinuxHost({ nodeName: "node-a" });
    const disks = new LoopDiskBackend({ host, disksDir, fenceable: true });
    const fencer = new LoopDiskFencer(host, disks);
    const pv: PersistentVolume = {
      metadata: { name: "pv-fence" },
      spec: { csi: { driver: "disk.csi.kvol.io", volumeHandle: "fence-1" } },
    };
    assert.equal(fencer.covers(pv), true);
    assert.equal(await fencer.unavailable(), undefined, "the probe of a fenced scratch loop device passes here");

    await disks.createDisk("fence-1", 64 * mebibyteBytes, {});
    const image = join(disksDir, "fence-1.img");
    const deviceA = await disks.attach("fence-1", "node-a", {});
    assert.match(deviceA, /^\/dev\/loop\d+$/);
    assert.equal(await disks.attach("fence-1", "node-a", {}), deviceA, "a retried attach gets the same device");
    assert.equal(
      readFileSync(`/sys/block/${deviceA.slice(5)}/loop/backing_file`, "utf8")
        .trim()
        .endsWith("/disks/nodes/node-a/fence-1.img"),
      true,
      "node-a's device is bound over node-a's link",
    );
    ok("mkfs.ext4", ["-q", "-F", deviceA]);
    const mountA = join(scratch, "mnt-a");
    await mkdir(mountA);
    ok("mount", [deviceA, mountA]);

    const writer = startWriter(join(mountA, "records"));
    writers.push(writer.child);
    await waitFor(
      "the writer's 20th acknowledged record",
      () => lastAcked(writer.output()) >= 20 || undefined,
      writerTimeoutMs,
    );

    const fence = await fencer.fence("node-a");
    assert.deepEqual(fence, {
      confirmed: true,
      detail: `${deviceA} now fail(s) every I/O (loop device's offset moved past the disk's end)`,
    });
    assert.equal(sectors(deviceA), 0, "the fenced device has no capacity left");
    const ackedAtFence = lastAcked(writer.output());

    const exitCode = await waitFor("the writer to fail", () => writer.child.exitCode ?? undefined, writerTimeoutMs);
    assert.equal(exitCode, 1, writer.output());
    const acked = lastAcked(writer.output());
    assert.match(writer.output(), new RegExp(`^failed ${acked + 1}$`, "m"));
    assert.match(writer.output(), /Input\/output error|Read-only file system/);
    assert.ok(acked - ackedAtFence <= 1, `${acked - ackedAtFence} records were acknowledged after the fence returned`);

    // The stale mount on node-a stays: nothing it does reaches the image any more.
    const fencedImage = sha256(image);
    spawnSync("sync", []);
    run("sh", ["-c", `echo late >> ${join(mountA, "records")}; sync -f ${mountA}`]);
    assert.equal(sha256(image), fencedImage, "the image's bytes did not change after the fence");

    // Kubernetes' force detach: node-a's device is released when its stale mount lets it go.
    await disks.detach("fence-1", "node-a");
    assert.deepEqual(await fencer.heldBy("node-a"), [deviceA], "the stale mount still holds node-a's device");
    assert.equal(sha256(image), fencedImage);

    const deviceB = await disks.attach("fence-1", "node-b", {});
    assert.notEqual(deviceB, deviceA);
    assert.ok(sectors(deviceB) > 0, "node-b's device is not fenced");
    const mountB = join(scratch, "mnt-b");
    await mkdir(mountB);
    ok("mount", [deviceB, mountB]);
    const records = readFileSync(join(mountB, "records"), "utf8");
    for (let n = 1; n <= acked; n++) {
      assert.equal(
        records.slice((n - 1) * recordBytes, n * recordBytes).trimEnd(),
        `record ${n}`,
        `acknowledged record ${n} of ${acked} as node-b reads it`,
      );
    }
    assert.ok(records.length <= (acked + 1) * recordBytes, "at most the record in flight beyond the acknowledged ones");
    ok("umount", [mountB]);

    // Unfencing waits for node-a to let go: its kubelet unmounts, the kernel releases the device.
    run("umount", [mountA]);
    await waitFor(
      "node-a's deferred device released",
      async () => (await fencer.heldBy("node-a")).length === 0 || undefined,
      writerTimeoutMs,
    );
    await fencer.unfence("node-a");
    await disks.detach("fence-1", "node-b");
    const again = await disks.attach("fence-1", "node-a", {});
    assert.ok(sectors(again) > 0, "node-a's new device works");
    ok("mount", [again, mountA]);
    assert.equal(readFileSync(join(mountA, "records"), "utf8").slice(0, recordBytes).trimEnd(), "record 1");
    ok("umount", [mountA]);
    await disks.detach("fence-1", "node-a");
    assert.deepEqual(await disks.loopDevicesOf("fence-1"), []);
    await disks.deleteDisk("fence-1");
    assert.equal(existsSync(join(disksDir, "nodes", "node-a", "fence-1.img")), false, "delete removes the node links");
    assert.equal(existsSync(join(disksDir, "nodes", "node-b", "fence-1.img")), false);
  });

  test("a killed fenceable attach leaves a device that node's next attach reuses: never two for one node", async (t) => {
    if (!requireOrSkip(t, skipReason)) return;
    const host = new LinuxHost({ nodeName: "node-c" });
    const disks = new LoopDiskBackend({ host, disksDir, fenceable: true });
    await disks.createDisk("shared-1", 16 * mebibyteBytes, { multiAttach: true });
    const deviceD = await disks.attach("shared-1", "node-d", {});
    const killed = spawnSync(
      process.execPath,
      ["--import", "tsx", killedAttachFixture, disksDir, "shared-1", "node-c", "fenceable"],
      { encoding: "utf8" },
    );
    assert.equal(killed.signal, "SIGKILL", `${killed.stdout}${killed.stderr}`);
    const [leftover, ...more] = (await disks.loopDevicesOf("shared-1")).filter((device) => device !== deviceD);
    assert.match(leftover ?? "", /^\/dev\/loop\d+$/, "the killed attach got as far as losetup");
    assert.deepEqual(more, []);
    assert.deepEqual(
      [...(await disks.disk("shared-1")).attachments.keys()],
      ["node-d"],
      "the record is the one before",
    );

    assert.equal(await disks.attach("shared-1", "node-c", {}), leftover, "node-c's next attach reuses its device");
    assert.deepEqual((await disks.loopDevicesOf("shared-1")).sort(), [deviceD, leftover].sort(), "one device per node");

    // Fencing node-c leaves node-d's device alone.
    const fenced = await disks.fenceNode("node-c");
    assert.deepEqual(
      fenced.map((state) => [state.device, state.sizeSectors]),
      [[leftover, 0]],
    );
    assert.equal(sectors(deviceD), 16 * 2048, "node-d's device keeps its 16 MiB");
    // An attach for the fenced node (another disk; in kvol up, the CSI controller's process) gets a fenced device.
    await disks.createDisk("late-1", 16 * mebibyteBytes, {});
    const late = await disks.attach("late-1", "node-c", {});
    assert.equal(sectors(late), 0, "a device bound for a fenced node is fenced at birth");
    assert.deepEqual((await disks.devicesHeldBy("node-c")).sort(), [leftover, late].sort());
    await disks.detach("late-1", "node-c");
    await disks.deleteDisk("late-1");
    await disks.detach("shared-1", "node-c");
    await disks.unfenceNode("node-c");
    const after = await disks.attach("shared-1", "node-c", {});
    assert.equal(sectors(after), 16 * 2048, "once unfenced, node-c's new device works");
    await disks.detach("shared-1", "node-c");
    await disks.detach("shared-1", "node-d");
    assert.deepEqual(await disks.loopDevicesOf("shared-1"), []);
    await disks.deleteDisk("shared-1");
    assert.deepEqual(
      run("sh", ["-c", `ls ${disksDir}/nodes/*/ 2>/dev/null`])
        .output.trim()
        .split("\n")
        .filter((line) => line.endsWith(".img")),
      [],
    );
  });
});
