import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestWorld } from "../testing/sim-test-world.ts";

async function nodeWithLoopDevice() {
  const { world } = newTestWorld();
  const node = world.addNode("node-a");
  await node.createSparseFile("/var/disk.img", 64 * 1024 * 1024);
  const device = (await node.run("losetup", ["-f", "--show", "/var/disk.img"])).output.trim();
  return { node, device };
}

describe("mkfs, blkid and fsck", () => {
  it("an injected format failure makes mkfs exit 1 with its text, and leaves the device unformatted", async () => {
    const { node, device } = await nodeWithLoopDevice();
    await node.injectFormatFailure(device, "mke2fs: Input/output error while writing out and closing file system\n");
    assert.deepEqual(await node.run("mkfs.ext4", ["-F", "-m0", device]), {
      exitCode: 1,
      output: "mke2fs: Input/output error while writing out and closing file system\n",
    });
    assert.equal((await node.run("blkid", ["-p", "-s", "TYPE", "-o", "export", device])).exitCode, 2);
    await node.injectFormatFailure(device, undefined);
    assert.equal((await node.run("mkfs.ext4", ["-F", "-m0", device])).exitCode, 0);
  });

  it("mkfs refuses a mounted device, and xfs refuses an existing filesystem without -f", async () => {
    const { node, device } = await nodeWithLoopDevice();
    assert.equal((await node.run("mkfs.ext4", ["-F", device])).exitCode, 0);
    assert.equal((await node.run("mount", [device, "/mnt"])).exitCode, 0);
    const mounted = await node.run("mkfs.ext4", ["-F", device]);
    assert.equal(mounted.exitCode, 1);
    assert.match(mounted.output, /is mounted; will not make a filesystem here!/);
    assert.equal((await node.run("umount", ["/mnt"])).exitCode, 0);
    const existing = await node.run("mkfs.xfs", [device]);
    assert.equal(existing.exitCode, 1);
    assert.match(existing.output, /appears to contain an existing filesystem \(ext4\)/);
    assert.equal((await node.run("mkfs.xfs", ["-f", device])).exitCode, 0);
    assert.match((await node.run("blkid", ["-p", "-s", "TYPE", "-o", "export", device])).output, /TYPE=xfs/);
  });

  it("formatting replaces the filesystem: what was written before is gone", async () => {
    const { node, device } = await nodeWithLoopDevice();
    assert.equal((await node.run("mkfs.ext4", ["-F", device])).exitCode, 0);
    assert.equal((await node.run("mount", [device, "/mnt"])).exitCode, 0);
    await node.writeFile("/mnt/precious", "data");
    assert.equal((await node.run("umount", ["/mnt"])).exitCode, 0);
    assert.equal((await node.run("mkfs.ext4", ["-F", device])).exitCode, 0);
    assert.equal((await node.run("mount", [device, "/mnt"])).exitCode, 0);
    assert.deepEqual(await node.readdir("/mnt"), []);
  });

  it("fsck -a exits 0 when clean, 1 once after correcting errors, 4 while errors stay uncorrected", async () => {
    const { node, device } = await nodeWithLoopDevice();
    assert.equal((await node.run("fsck", ["-a", device])).exitCode, 8, "no filesystem yet");
    assert.equal((await node.run("mkfs.ext4", ["-F", device])).exitCode, 0);
    assert.equal((await node.run("fsck", ["-a", device])).exitCode, 0);
    await node.setFsckResult(device, 1, `${device}: Inode 12 ref count is 2, should be 1. FIXED.\n`);
    const corrected = await node.run("fsck", ["-a", device]);
    assert.equal(corrected.exitCode, 1);
    assert.match(corrected.output, /FIXED/);
    assert.equal((await node.run("fsck", ["-a", device])).exitCode, 0);
    await node.setFsckResult(device, 4, `${device}: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.\n`);
    assert.equal((await node.run("fsck", ["-a", device])).exitCode, 4);
    assert.equal((await node.run("fsck", ["-a", device])).exitCode, 4);
  });

  it("mount of an image file sets up its own loop device and releases it on umount", async () => {
    const { node, device } = await nodeWithLoopDevice();
    assert.equal((await node.run("mkfs.ext4", ["-F", device])).exitCode, 0);
    assert.equal((await node.run("losetup", ["-d", device])).exitCode, 0);
    assert.equal((await node.run("mount", ["/var/disk.img", "/mnt"])).exitCode, 0);
    assert.equal(node.blockDevices().filter((candidate) => candidate.kind === "loop").length, 1);
    assert.equal((await node.run("umount", ["/mnt"])).exitCode, 0);
    assert.equal(node.blockDevices().filter((candidate) => candidate.kind === "loop").length, 0);
  });
});
