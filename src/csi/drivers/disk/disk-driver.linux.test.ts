/**
 * disk.csi.kvol.io on real Linux hosts: disks are sparse files attached as real loop devices,
 * formatted with the real mkfs.ext4, mounted and bound with the real mount(8) — two node plugins
 * (node-a, node-b) on this machine, inside a private mount namespace so no mount outlives the test.
 * Loop devices are the machine's, not the namespace's: every one the test makes is released, and
 * the last test asserts none is left. Needs root and /dev/loop-control; skips outside CI without.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readdir, readFile, rmdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ImageStore } from "../../../cri/images/image-store.ts";
import { LinuxRuntimeService } from "../../../cri/linux/linux-runtime-service.ts";
import { probeLinuxRuntime } from "../../../cri/linux/runtime-requirements.ts";
import { LinuxHost } from "../../../host/linux/linux-host.ts";
import { readMountInfo } from "../../../host/linux/mount-info-reader.ts";
import { inPrivateMountNamespace } from "../../../host/linux/private-mount-namespace.ts";
import { makeScratchDir, mountsUnder, removeScratchDir } from "../../../host/linux/scratch-dir.ts";
import { RealClock } from "../../../runtime/real-clock.ts";
import { Rng } from "../../../runtime/rng.ts";
import { requireOrSkip } from "../../../testing/requirements.ts";
import { connectCsiInProcess } from "../../grpc/in-process.ts";
import type { CsiClient } from "../../grpc/services.ts";
import type { VolumeCapability } from "../../proto/types.ts";
import { createBundledDriver } from "../bundled-drivers.ts";
import {
  blockCapability,
  createRequest,
  mebibyteBytes,
  mountCapability,
  publishRequest,
  rejectsWithCode,
  stageRequest,
} from "../testing/driver-test-support.ts";

const driverName = "disk.csi.kvol.io";
const killedAttachFixture = join(import.meta.dirname, "killed-attach.fixture.ts");

/** Why these tests cannot run here, or undefined. */
function missingRequirement(): string | undefined {
  if (!existsSync("/dev/loop-control")) return "/dev/loop-control is missing: the kernel has no loop driver here";
  for (const tool of ["losetup", "blkid", "mkfs.ext4"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0)
      return `${tool} is not on PATH (util-linux, e2fsprogs)`;
  }
  return undefined;
}

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: "utf8" });
  assert.equal(result.status, 0, `${command} ${args.join(" ")}: ${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** blkid's TYPE and UUID of a device ("" when it holds no filesystem). */
/** Whether this process may grow a mounted filesystem (capability 24 in its effective set). */
function hasCapSysResource(): boolean {
  const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "0";
  return (BigInt(`0x${effective}`) >> 24n) % 2n === 1n;
}

function filesystemOf(device: string): { type: string; uuid: string } {
  const result = spawnSync("blkid", ["-p", "-o", "export", device], { encoding: "utf8" });
  const value = (key: string) => new RegExp(`^${key}=(.*)$`, "m").exec(result.stdout)?.[1] ?? "";
  return { type: value("TYPE"), uuid: value("UUID") };
}

function loopDevicesOver(file: string): string[] {
  return spawnSync("losetup", ["-j", file], { encoding: "utf8" })
    .stdout.split("\n")
    .filter((line) => line !== "")
    .map((line) => line.slice(0, line.indexOf(":")));
}

async function isMounted(path: string): Promise<boolean> {
  return (await readMountInfo()).some((mount) => mount.mountPoint === path);
}

inPrivateMountNamespace(import.meta.filename, "disk.csi.kvol.io on real loop devices", () => {
  const clock = new RealClock();
  let scratch = "";
  let disksDir = "";
  let skipReason: string | undefined;
  const clients: Record<"a" | "b", CsiClient | undefined> = { a: undefined, b: undefined };

  before(async () => {
    skipReason = missingRequirement();
    scratch = await makeScratchDir("disk-driver");
    disksDir = join(scratch, "disks");
    for (const node of ["a", "b"] as const) {
      const host = new LinuxHost({ nodeName: `node-${node}` });
      const driver = createBundledDriver(driverName, { host, clock, nodeId: `node-${node}`, stateDir: disksDir });
      assert.ok(driver !== undefined);
      clients[node] = connectCsiInProcess(driver);
    }
  });

  after(async () => {
    // Mounts die with the namespace, loop devices do not: release any a failed test left.
    for (const name of existsSync(disksDir) ? await readdir(disksDir) : []) {
      for (const device of loopDevicesOver(join(disksDir, name))) spawnSync("losetup", ["-d", device]);
    }
    for (const mountPoint of (await mountsUnder(scratch)).reverse()) spawnSync("umount", ["-l", mountPoint]);
    await removeScratchDir(scratch);
  });

  function node(t: Parameters<typeof requireOrSkip>[0], name: "a" | "b"): CsiClient | undefined {
    if (!requireOrSkip(t, skipReason)) return undefined;
    return clients[name];
  }

  function paths(nodeName: string, volumeId: string, podUid: string) {
    const kubelet = join(scratch, `kubelet-${nodeName}`);
    return {
      staging: join(kubelet, "plugins/kubernetes.io/csi", driverName, volumeId, "globalmount"),
      target: join(kubelet, "pods", podUid, "volumes/kubernetes.io~csi/pv-disk/mount"),
    };
  }

  async function create(client: CsiClient, name: string, capability: VolumeCapability = mountCapability()) {
    const { volume } = await client.createVolume(
      createRequest(name, {
        volumeCapabilities: [capability],
        capacityRange: { requiredBytes: 64 * mebibyteBytes, limitBytes: 0 },
      }),
    );
    return volume?.volumeId ?? "";
  }

  async function attach(client: CsiClient, volumeId: string, nodeId: string, capability = mountCapability()) {
    const { publishContext } = await client.controllerPublishVolume({
      volumeId,
      nodeId,
      volumeCapability: capability,
      readonly: false,
      secrets: {},
      volumeContext: {},
    });
    return publishContext;
  }

  async function detach(client: CsiClient, volumeId: string, nodeId: string) {
    await client.controllerUnpublishVolume({ volumeId, nodeId, secrets: {} });
  }

  test("written on node-a, detached, attached to node-b: staged there without a format, the file is read back", async (t) => {
    const a = node(t, "a");
    const b = node(t, "b");
    if (a === undefined || b === undefined) return;
    const volumeId = await create(a, "pvc-moves");
    const image = join(disksDir, `${volumeId}.img`);
    assert.equal((await stat(image)).size, 64 * mebibyteBytes);
    assert.ok((await stat(image)).blocks * 512 < mebibyteBytes, "the disk's file is sparse");

    const contextA = await attach(a, volumeId, "node-a");
    const device = contextA.devicePath ?? "";
    assert.match(device, /^\/dev\/loop\d+$/);
    assert.deepEqual(loopDevicesOver(image), [device]);
    const onA = paths("a", volumeId, "uid-a");
    await a.nodeStageVolume({ ...stageRequest(volumeId, onA.staging), publishContext: contextA });
    const formatted = filesystemOf(device);
    assert.equal(formatted.type, "ext4");
    assert.equal((await readMountInfo()).find((m) => m.mountPoint === onA.staging)?.source, device);
    await a.nodeStageVolume({ ...stageRequest(volumeId, onA.staging), publishContext: contextA });
    await a.nodePublishVolume({ ...publishRequest(volumeId, onA.staging, onA.target), publishContext: contextA });
    await writeFile(join(onA.target, "index.html"), "written on node-a");

    await a.nodeUnpublishVolume({ volumeId, targetPath: onA.target });
    await a.nodeUnstageVolume({ volumeId, stagingTargetPath: onA.staging });
    assert.equal(await isMounted(onA.staging), false);
    await detach(a, volumeId, "node-a");
    assert.deepEqual(loopDevicesOver(image), [], "detach released the loop device");

    const contextB = await attach(b, volumeId, "node-b");
    const onB = paths("b", volumeId, "uid-b");
    await b.nodeStageVolume({ ...stageRequest(volumeId, onB.staging), publishContext: contextB });
    assert.deepEqual(filesystemOf(contextB.devicePath ?? ""), formatted, "the same filesystem, not a new one");
    await b.nodePublishVolume({ ...publishRequest(volumeId, onB.staging, onB.target), publishContext: contextB });
    assert.equal(await readFile(join(onB.target, "index.html"), "utf8"), "written on node-a");

    await b.nodeUnpublishVolume({ volumeId, targetPath: onB.target });
    await b.nodeUnstageVolume({ volumeId, stagingTargetPath: onB.staging });
    await detach(b, volumeId, "node-b");
    await b.deleteVolume({ volumeId, secrets: {} });
    await assert.rejects(stat(image), { code: "ENOENT" });
  });

  test("an RWO disk attached to node-a is refused to node-b; a multi-attach one is shared by both", async (t) => {
    const a = node(t, "a");
    const b = node(t, "b");
    if (a === undefined || b === undefined) return;
    const rwo = await create(a, "pvc-rwo");
    await attach(a, rwo, "node-a");
    await rejectsWithCode(attach(b, rwo, "node-b"), "FailedPrecondition", /attached to node node-a/);
    await rejectsWithCode(
      attach(b, rwo, "node-b", mountCapability({ mode: "MULTI_NODE_READER_ONLY" })),
      "FailedPrecondition",
      /^ControllerPublishVolume: disk disk-[0-9a-f]{20} is attached to node node-a; it cannot also be attached read-write to node node-b because it does not allow multi-attach: detach it first$/,
    );
    const onB = paths("b", rwo, "uid-b");
    await rejectsWithCode(
      b.nodeStageVolume({ ...stageRequest(rwo, onB.staging), publishContext: { devicePath: "/dev/loop0" } }),
      "FailedPrecondition",
      /is not attached to node node-b/,
    );
    await rejectsWithCode(a.deleteVolume({ volumeId: rwo, secrets: {} }), "FailedPrecondition", /still attached/);
    await detach(a, rwo, "node-a");
    await a.deleteVolume({ volumeId: rwo, secrets: {} });

    const rwx = mountCapability({ mode: "MULTI_NODE_MULTI_WRITER" });
    const shared = await create(a, "pvc-rwx", rwx);
    const onA = (await attach(a, shared, "node-a", rwx)).devicePath;
    const onBDevice = (await attach(b, shared, "node-b", rwx)).devicePath;
    assert.equal(onBDevice, onA, "one loop device over the disk, whatever the number of nodes");
    await detach(a, shared, "node-a");
    assert.deepEqual(loopDevicesOver(join(disksDir, `${shared}.img`)), [onA]);
    await detach(b, shared, "node-b");
    assert.deepEqual(loopDevicesOver(join(disksDir, `${shared}.img`)), []);
    await a.deleteVolume({ volumeId: shared, secrets: {} });
  });

  test("a block volume's loop device is bound onto the pod's device file, and takes writes", async (t) => {
    const a = node(t, "a");
    if (a === undefined) return;
    const volumeId = await create(a, "pvc-raw", blockCapability());
    const context = await attach(a, volumeId, "node-a", blockCapability());
    const kubelet = join(scratch, "kubelet-a/plugins/kubernetes.io/csi/volumeDevices");
    const staging = join(kubelet, "staging/pv-raw");
    const target = join(kubelet, "publish/pv-raw/uid-1");
    await a.nodeStageVolume({ ...stageRequest(volumeId, staging, blockCapability()), publishContext: context });
    await a.nodePublishVolume({
      ...publishRequest(volumeId, staging, target, { volumeCapability: blockCapability() }),
      publishContext: context,
    });
    assert.ok((await stat(target)).isBlockDevice());
    assert.equal((await stat(target)).rdev, (await stat(context.devicePath ?? "")).rdev);
    assert.equal(filesystemOf(context.devicePath ?? "").type, "", "a block volume is never formatted");
    await writeFile(target, "raw bytes", { flag: "r+" });
    assert.equal((await readFile(join(disksDir, `${volumeId}.img`))).subarray(0, 9).toString(), "raw bytes");
    await a.nodeUnpublishVolume({ volumeId, targetPath: target });
    await assert.rejects(stat(target), { code: "ENOENT" });
    await a.nodeUnstageVolume({ volumeId, stagingTargetPath: staging });
    await detach(a, volumeId, "node-a");
    await a.deleteVolume({ volumeId, secrets: {} });
  });

  test("a Block volume published by the driver is a device in a busybox container, whose writes reach the disk", async (t) => {
    const a = node(t, "a");
    if (a === undefined) return;
    const probe = await probeLinuxRuntime();
    if (!requireOrSkip(t, "problems" in probe ? probe.problems.join("; ") : undefined) || "problems" in probe) return;
    const cgroupRoot = join(probe.cgroup2Mount, `kvol-disk-test-${process.pid}`);
    const runtime = new LinuxRuntimeService({
      clock,
      rng: new Rng(process.pid),
      images: new ImageStore(join(scratch, "images")),
      stateDir: join(scratch, "containers"),
      cgroupRoot,
      tools: probe.tools,
    });
    const volumeId = await create(a, "pvc-raw-pod", blockCapability());
    const context = await attach(a, volumeId, "node-a", blockCapability());
    const kubelet = join(scratch, "kubelet-a/plugins/kubernetes.io/csi/volumeDevices");
    const staging = join(kubelet, "staging/pv-raw-pod");
    const target = join(kubelet, "publish/pv-raw-pod/uid-pod");
    await a.nodeStageVolume({ ...stageRequest(volumeId, staging, blockCapability()), publishContext: context });
    await a.nodePublishVolume({
      ...publishRequest(volumeId, staging, target, { volumeCapability: blockCapability() }),
      publishContext: context,
    });
    const sandbox = await runtime.runPodSandbox({
      metadata: { name: "raw", namespace: "default", uid: "uid-pod", attempt: 0 },
      hostname: "raw",
      logDirectory: join(scratch, "logs/default_raw_uid-pod"),
    });
    try {
      const id = await runtime.createContainer(sandbox, {
        metadata: { name: "dd", attempt: 0 },
        image: "busybox",
        command: ["sleep", "3600"],
        args: [],
        workingDir: "",
        envs: [],
        mounts: [],
        devices: [{ containerPath: "/dev/xvdb", hostPath: target }],
        logPath: "dd/0.log",
      });
      await runtime.startContainer(id);
      const write = await runtime.execSync(
        id,
        ["sh", "-c", "echo block-from-the-pod | dd of=/dev/xvdb bs=4096 seek=2 conv=fsync 2>&1"],
        30_000,
      );
      assert.equal(write.exitCode, 0, write.stdout.toString());
      const read = await runtime.execSync(
        id,
        ["sh", "-c", "dd if=/dev/xvdb bs=4096 skip=2 count=1 2>/dev/null | head -n 1"],
        30_000,
      );
      assert.equal(read.stdout.toString(), "block-from-the-pod\n");
    } finally {
      await runtime.removePodSandbox(sandbox);
      await rmdir(cgroupRoot);
    }
    const image = await readFile(join(disksDir, `${volumeId}.img`));
    assert.equal(image.subarray(2 * 4096, 2 * 4096 + 18).toString(), "block-from-the-pod");
    await a.nodeUnpublishVolume({ volumeId, targetPath: target });
    await a.nodeUnstageVolume({ volumeId, stagingTargetPath: staging });
    await detach(a, volumeId, "node-a");
    await a.deleteVolume({ volumeId, secrets: {} });
  });

  test("a publish_context naming a loop device the machine has since given to another disk stages the right disk", async (t) => {
    const a = node(t, "a");
    if (a === undefined) return;
    const moved = await create(a, "pvc-moved");
    const stale = await attach(a, moved, "node-a");
    // A reboot loses the loop device; the next disk attached takes its number.
    run("losetup", ["-d", stale.devicePath ?? ""]);
    const other = await create(a, "pvc-other");
    const otherDevice = (await attach(a, other, "node-a")).devicePath ?? "";
    const { staging } = paths("a", moved, "uid-stale");
    await a.nodeStageVolume({ ...stageRequest(moved, staging), publishContext: stale });
    const [movedDevice] = loopDevicesOver(join(disksDir, `${moved}.img`));
    assert.equal((await readMountInfo()).find((m) => m.mountPoint === staging)?.source, movedDevice);
    assert.equal(filesystemOf(otherDevice).type, "", "the other disk was not formatted");
    await a.nodeUnstageVolume({ volumeId: moved, stagingTargetPath: staging });
    for (const volumeId of [moved, other]) {
      await detach(a, volumeId, "node-a");
      await a.deleteVolume({ volumeId, secrets: {} });
    }
  });

  test("a disk with a filesystem is never reformatted; a mount that fails says what mount printed", async (t) => {
    const a = node(t, "a");
    if (a === undefined) return;
    const volumeId = await create(a, "pvc-ext4");
    const context = await attach(a, volumeId, "node-a");
    const device = context.devicePath ?? "";
    run("mkfs.ext4", ["-q", "-L", "keepme", device]);
    const before = filesystemOf(device);
    const { staging } = paths("a", volumeId, "uid-x");
    const asXfs = mountCapability();
    asXfs.mount = { fsType: "xfs", mountFlags: [], volumeMountGroup: "" };
    const error = await rejectsWithCode(
      a.nodeStageVolume({ ...stageRequest(volumeId, staging, asXfs), publishContext: context }),
      "Internal",
    );
    assert.ok(
      error.statusMessage.includes(
        `mount failed: exit status 32\nMounting command: mount\nMounting arguments: -t xfs -o defaults ${device} ${staging}\nOutput: mount: ${staging}: `,
      ),
      error.statusMessage,
    );
    assert.deepEqual(filesystemOf(device), before, "the ext4 filesystem is untouched");
    assert.equal(await isMounted(staging), false);
    await a.nodeUnstageVolume({ volumeId, stagingTargetPath: staging });
    await detach(a, volumeId, "node-a");
    await a.deleteVolume({ volumeId, secrets: {} });
  });

  test("an empty disk staged as xfs is formatted xfs where mkfs.xfs exists, and fails naming it where not", async (t) => {
    const a = node(t, "a");
    if (a === undefined) return;
    const volumeId = await create(a, "pvc-xfs");
    const context = await attach(a, volumeId, "node-a");
    const device = context.devicePath ?? "";
    const { staging } = paths("a", volumeId, "uid-xfs");
    const asXfs = mountCapability();
    asXfs.mount = { fsType: "xfs", mountFlags: [], volumeMountGroup: "" };
    const stage = a.nodeStageVolume({ ...stageRequest(volumeId, staging, asXfs), publishContext: context });
    if (spawnSync("sh", ["-c", "command -v mkfs.xfs"]).status === 0) {
      await stage;
      assert.equal(filesystemOf(device).type, "xfs");
    } else {
      await rejectsWithCode(stage, "Internal", new RegExp(`format of disk "${device}" failed: type:\\("xfs"\\)`));
      assert.equal(filesystemOf(device).type, "", "nothing was written to the disk");
    }
    await a.nodeUnstageVolume({ volumeId, stagingTargetPath: staging });
    await detach(a, volumeId, "node-a");
    await a.deleteVolume({ volumeId, secrets: {} });
  });

  test("a driver killed (SIGKILL) mid-attach leaves its record whole; the next attach reuses its loop device", async (t) => {
    const a = node(t, "a");
    if (a === undefined) return;
    const volumeId = await create(a, "pvc-crash");
    const image = join(disksDir, `${volumeId}.img`);
    const recordPath = join(disksDir, `${volumeId}.json`);
    const record = await readFile(recordPath, "utf8");
    const killed = spawnSync(process.execPath, ["--import", "tsx", killedAttachFixture, disksDir, volumeId, "node-a"], {
      encoding: "utf8",
    });
    assert.equal(killed.signal, "SIGKILL", `${killed.stdout}${killed.stderr}`);
    const [leftover] = loopDevicesOver(image);
    assert.match(leftover ?? "", /^\/dev\/loop\d+$/, "the killed attach got as far as losetup");
    assert.equal(await readFile(recordPath, "utf8"), record, "the record is the one before the attach, whole");

    const context = await attach(a, volumeId, "node-a");
    assert.equal(context.devicePath, leftover);
    assert.deepEqual(loopDevicesOver(image), [leftover], "never two loop devices over one file");
    assert.deepEqual(JSON.parse(await readFile(recordPath, "utf8")).attachments, [
      { nodeName: "node-a", readOnly: false },
    ]);
    await detach(a, volumeId, "node-a");
    assert.deepEqual(loopDevicesOver(image), []);
    await a.deleteVolume({ volumeId, secrets: {} });
  });

  test("a disk in use grows: its file, its loop device (losetup -c) and its ext4 (resize2fs), the pod's bytes kept", async (t) => {
    const a = node(t, "a");
    if (a === undefined) return;
    const volumeId = await create(a, "pvc-grows");
    const image = join(disksDir, `${volumeId}.img`);
    const context = await attach(a, volumeId, "node-a");
    const device = context.devicePath ?? "";
    const on = paths("a", volumeId, "uid-grow");
    await a.nodeStageVolume({ ...stageRequest(volumeId, on.staging), publishContext: context });
    await a.nodePublishVolume({ ...publishRequest(volumeId, on.staging, on.target), publishContext: context });
    await writeFile(join(on.target, "kept"), "written before the resize");
    const sizeOf = (path: string) => Number(run("df", ["-B1", "--output=size", path]).split("\n")[1]);
    assert.ok(sizeOf(on.target) < 64 * mebibyteBytes);

    const grown = await a.controllerExpandVolume({
      volumeId,
      capacityRange: { requiredBytes: 128 * mebibyteBytes, limitBytes: 0 },
      secrets: {},
      volumeCapability: mountCapability(),
    });
    assert.deepEqual(grown, { capacityBytes: 128 * mebibyteBytes, nodeExpansionRequired: true });
    assert.equal((await stat(image)).size, 128 * mebibyteBytes);
    assert.equal(Number(run("blockdev", ["--getsize64", device]).trim()), 128 * mebibyteBytes);

    const nodeExpand = a.nodeExpandVolume({
      volumeId,
      volumePath: on.target,
      capacityRange: { requiredBytes: 128 * mebibyteBytes, limitBytes: 0 },
      stagingTargetPath: on.staging,
      volumeCapability: mountCapability(),
      secrets: {},
    });
    if (hasCapSysResource()) {
      await nodeExpand;
      assert.ok(sizeOf(on.target) > 100 * mebibyteBytes, `df says ${sizeOf(on.target)} bytes`);
    } else {
      // The kernel grows a mounted ext4 only for CAP_SYS_RESOURCE; a container without it sees
      // resize2fs refused, and the driver says so.
      t.diagnostic("no CAP_SYS_RESOURCE here: the online resize is refused, as it would be on such a node");
      await rejectsWithCode(nodeExpand, "Internal", /resize2fs.*Permission denied to resize filesystem/s);
    }
    assert.equal(await readFile(join(on.target, "kept"), "utf8"), "written before the resize");

    await a.nodeUnpublishVolume({ volumeId, targetPath: on.target });
    await a.nodeUnstageVolume({ volumeId, stagingTargetPath: on.staging });
    await detach(a, volumeId, "node-a");
    await a.deleteVolume({ volumeId, secrets: {} });
  });

  test("afterwards: no disk left, no loop device over the disks directory, nothing mounted", async (t) => {
    if (node(t, "a") === undefined) return;
    assert.deepEqual(await readdir(disksDir), []);
    const overDisks = run("losetup", ["-a"])
      .split("\n")
      .filter((line) => line.includes(disksDir));
    assert.deepEqual(overDisks, []);
    assert.deepEqual(await mountsUnder(scratch), []);
  });
});
