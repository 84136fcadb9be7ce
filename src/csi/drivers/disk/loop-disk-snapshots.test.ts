import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestWorld } from "../../../host/sim/testing/sim-test-world.ts";
import { CloudDiskError } from "../../../host/sim/world/disk-provider.ts";
import { LoopDiskBackend } from "./loop-disk-backend.ts";

const disksDir = "/var/lib/kvol/disks";
const mebibyte = 1024 ** 2;

function setUp() {
  const { world, clock } = newTestWorld();
  const host = world.addNode("machine");
  return { host, clock, disks: new LoopDiskBackend({ host, disksDir, clock }) };
}

describe("LoopDiskBackend snapshots", () => {
  it("copies a disk's image into a dated snapshot and restores it into a disk as big or bigger", async () => {
    const { host, clock, disks } = setUp();
    await disks.createDisk("disk-1", 4 * mebibyte, {});
    await host.writeFile(disks.imagePath("disk-1"), "the bytes of disk-1");
    const taken = await disks.createSnapshot("snap-1", "disk-1");
    assert.deepEqual(taken, {
      id: "snap-1",
      sourceDiskId: "disk-1",
      sizeBytes: 4 * mebibyte,
      creationTimeMs: clock.now(),
      readyToUse: true,
    });
    await disks.createDisk("disk-2", 8 * mebibyte, { source: { snapshotId: "snap-1" } });
    const restored = await host.readFile(disks.imagePath("disk-2"));
    assert.equal(restored.byteLength, 8 * mebibyte);
    assert.equal(new TextDecoder().decode(restored.subarray(0, 19)), "the bytes of disk-1");
    await disks.createDisk("disk-3", 4 * mebibyte, { source: { diskId: "disk-1" } });
    assert.equal((await host.stat(disks.imagePath("disk-3"))).size, 4 * mebibyte);
  });

  it("refuses a disk smaller than its source, lists snapshots and forgets a deleted one", async () => {
    const { disks } = setUp();
    await disks.createDisk("disk-1", 4 * mebibyte, {});
    await disks.createSnapshot("snap-1", "disk-1");
    await assert.rejects(
      disks.createDisk("disk-2", 2 * mebibyte, { source: { snapshotId: "snap-1" } }),
      (error: unknown) =>
        error instanceof CloudDiskError &&
        error.code === "TooSmall" &&
        error.message === "a disk of 2097152 bytes cannot hold snapshot snap-1 of 4194304 bytes",
    );
    assert.equal(await disks.has("disk-2"), false);
    assert.deepEqual(
      (await disks.listSnapshots()).map((snapshot) => snapshot.id),
      ["snap-1"],
    );
    await disks.deleteSnapshot("snap-1");
    await disks.deleteSnapshot("snap-1");
    assert.deepEqual(await disks.listSnapshots(), []);
    assert.equal(await disks.hasSnapshot("snap-1"), false);
  });

  it("refuses a snapshot of a disk bigger than the free space beside the disks", async () => {
    const { disks } = setUp();
    // 200 GiB: twice the simulated machine's 100 GiB root disk.
    await disks.createDisk("disk-big", 200 * 1024 * mebibyte, {});
    await assert.rejects(
      disks.createSnapshot("snap-big", "disk-big"),
      (error: unknown) =>
        error instanceof CloudDiskError &&
        error.code === "NoSpace" &&
        /^not enough space for snapshot snap-big of disk disk-big: it holds 214748364800 bytes, but only \d+ bytes are free in \/var\/lib\/kvol\/disks\/snapshots$/.test(
          error.message,
        ),
    );
    assert.equal(await disks.hasSnapshot("snap-big"), false);
  });
});
