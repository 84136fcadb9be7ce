import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expectErrno } from "../../host-contract.ts";
import { newTestWorld } from "../testing/sim-test-world.ts";
import { CloudDiskError } from "./disk-provider.ts";

const gib = 1024 * 1024 * 1024;
const devicePath = "/dev/disk/by-id/virtio-disk-1";
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

function diskWorld() {
  const { world, clock } = newTestWorld();
  const nodeA = world.addNode("node-a", { zone: "zone-1", utilLinux: "2.38" });
  const nodeB = world.addNode("node-b", { zone: "zone-1" });
  world.disks.createDisk("disk-1", gib, { zone: "zone-1" });
  return { world, clock, nodeA, nodeB };
}

function isDiskError(code: string) {
  return (error: unknown) => error instanceof CloudDiskError && error.code === code;
}

describe("cloud disks", () => {
  it("an attached disk appears as a block device only after the attach latency", async () => {
    const { world, clock, nodeA } = diskWorld();
    world.disks.setFaults("disk-1", { attachLatencyMs: 5_000 });
    let path: string | undefined;
    const attach = world.disks.attach("disk-1", "node-a").then((attached) => {
      path = attached;
    });
    await clock.advanceBy(4_999);
    assert.equal(path, undefined);
    await expectErrno(nodeA.stat(devicePath), "ENOENT");
    await clock.advanceBy(1);
    await attach;
    assert.equal(path, devicePath);
    assert.equal((await nodeA.stat(devicePath)).type, "blockDevice");
    assert.equal(await nodeA.readlink(devicePath), "../../sdb");
  });

  it("bytes written on one node survive unmount, detach, attach elsewhere and mount", async () => {
    const { world, clock, nodeA, nodeB } = diskWorld();
    const attached = world.disks.attach("disk-1", "node-a");
    await clock.runUntilIdle();
    await attached;
    const mountPoint = "/var/lib/kubelet/plugins/kubernetes.io/csi/disk/globalmount";
    await nodeA.mkdir(mountPoint, 0o750, { recursive: true });

    assert.deepEqual(await nodeA.run("blkid", ["-p", "-s", "TYPE", "-s", "PTTYPE", "-o", "export", devicePath]), {
      exitCode: 2,
      output: "",
    });
    const unformatted = await nodeA.run("mount", ["-t", "ext4", devicePath, mountPoint]);
    assert.deepEqual(unformatted, {
      exitCode: 32,
      output:
        `mount: ${mountPoint}: wrong fs type, bad option, bad superblock on /dev/sdb, missing codepage or helper program, or other error.\n` +
        "       dmesg(1) may have more information after failed mount system call.\n",
    });
    assert.equal((await nodeA.run("mkfs.ext4", ["-F", "-m0", devicePath])).exitCode, 0);
    assert.deepEqual(await nodeA.run("blkid", ["-p", "-s", "TYPE", "-s", "PTTYPE", "-o", "export", devicePath]), {
      exitCode: 0,
      output: `DEVNAME=${devicePath}\nTYPE=ext4\n`,
    });
    assert.equal((await nodeA.run("mount", ["-t", "ext4", "-o", "defaults", devicePath, mountPoint])).exitCode, 0);
    const entry = (await nodeA.mountInfo()).find((mount) => mount.mountPoint === mountPoint);
    assert.deepEqual([entry?.source, entry?.fsType, entry?.majorMinor], ["/dev/sdb", "ext4", "8:16"]);
    await nodeA.mkdir(`${mountPoint}/db`, 0o700);
    await nodeA.writeFile(`${mountPoint}/db/rows`, "row 1\nrow 2\n");
    assert.equal((await nodeA.run("umount", [mountPoint])).exitCode, 0);
    const detached = world.disks.detach("disk-1", "node-a");
    await clock.runUntilIdle();
    await detached;
    await expectErrno(nodeA.stat(devicePath), "ENOENT");

    const attachedB = world.disks.attach("disk-1", "node-b");
    await clock.runUntilIdle();
    await attachedB;
    await nodeB.mkdir("/mnt/data", 0o755);
    assert.equal((await nodeB.run("mount", [devicePath, "/mnt/data"])).exitCode, 0);
    assert.equal(text(await nodeB.readFile("/mnt/data/db/rows")), "row 1\nrow 2\n");
  });

  it("a disk attached read-write to one node cannot be attached to another unless multi-attach is allowed", async () => {
    const { world, clock } = diskWorld();
    const first = world.disks.attach("disk-1", "node-a");
    await clock.runUntilIdle();
    await first;
    await assert.rejects(world.disks.attach("disk-1", "node-b"), isDiskError("AttachedElsewhere"));
    world.disks.createDisk("shared", gib, { multiAttach: true });
    const sharedA = world.disks.attach("shared", "node-a");
    const sharedB = world.disks.attach("shared", "node-b");
    await clock.runUntilIdle();
    await Promise.all([sharedA, sharedB]);
    assert.deepEqual([...world.disks.disk("shared").attachments.keys()], ["node-a", "node-b"]);
  });

  it("zone mismatch, injected errors, unknown disks and deleting an attached disk are refused", async () => {
    const { world, clock } = diskWorld();
    world.addNode("node-z", { zone: "zone-2" });
    await assert.rejects(world.disks.attach("disk-1", "node-z"), isDiskError("ZoneMismatch"));
    await assert.rejects(world.disks.attach("nope", "node-a"), isDiskError("NotFound"));
    world.disks.setFaults("disk-1", { attachError: "quota exceeded" });
    const failing = assert.rejects(world.disks.attach("disk-1", "node-a"), /quota exceeded/);
    await clock.runUntilIdle();
    await failing;
    assert.equal(world.disks.disk("disk-1").attachments.size, 0);
    world.disks.setFaults("disk-1", {});
    const attached = world.disks.attach("disk-1", "node-a");
    await clock.runUntilIdle();
    await attached;
    assert.throws(() => world.disks.deleteDisk("disk-1"), isDiskError("StillAttached"));
  });

  it("detaching under a mounted filesystem makes its I/O fail with EIO", async () => {
    const { world, clock, nodeA } = diskWorld();
    const attached = world.disks.attach("disk-1", "node-a");
    await clock.runUntilIdle();
    await attached;
    assert.equal((await nodeA.run("mkfs.ext4", ["-F", devicePath])).exitCode, 0);
    assert.equal((await nodeA.run("mount", [devicePath, "/mnt"])).exitCode, 0);
    const detached = world.disks.detach("disk-1", "node-a");
    await clock.runUntilIdle();
    await detached;
    await expectErrno(nodeA.readdir("/mnt"), "EIO");
    assert.equal((await nodeA.run("umount", ["/mnt"])).exitCode, 0);
  });
});
