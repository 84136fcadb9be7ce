import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Host, HostError } from "../../../host/host.ts";
import { newTestWorld } from "../../../host/sim/testing/sim-test-world.ts";
import { CloudDiskError } from "../../../host/sim/world/disk-provider.ts";
import { LoopDiskBackend } from "./loop-disk-backend.ts";

const disksDir = "/var/lib/kvol/disks";
const mebibyte = 1024 ** 2;

function setUp() {
  const { world } = newTestWorld();
  const host = world.addNode("machine");
  return { host, disks: new LoopDiskBackend({ host, disksDir }) };
}

async function rejectsWith(call: Promise<unknown>, code: string, pattern: RegExp): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof CloudDiskError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  });
}

/** A Host whose next rename fails: the process was killed after writing the temporary record. */
function killedBeforeRename(host: Host): Host {
  return new Proxy(host, {
    get(target, property, receiver) {
      if (property === "rename") {
        return async (from: string) => {
          throw new HostError("EIO", "rename", from, "the process was killed here");
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("LoopDiskBackend (on the simulated node's losetup)", () => {
  it("a disk is a sparse file and a record; attaching it is one loop device, the same on a retry", async () => {
    const { host, disks } = setUp();
    await disks.createDisk("disk-1", 64 * mebibyte, {});
    assert.equal((await host.stat(`${disksDir}/disk-1.img`)).size, 64 * mebibyte);
    const record = JSON.parse(new TextDecoder().decode(await host.readFile(`${disksDir}/disk-1.json`)));
    assert.deepEqual(record, { id: "disk-1", sizeBytes: 64 * mebibyte, multiAttach: false, attachments: [] });

    const device = await disks.attach("disk-1", "node-a", {});
    assert.match(device, /^\/dev\/loop\d+$/);
    assert.equal(await disks.attach("disk-1", "node-a", {}), device);
    assert.deepEqual(await disks.loopDevicesOf("disk-1"), [device]);
    assert.deepEqual([...(await disks.disk("disk-1")).attachments.keys()], ["node-a"]);

    await disks.detach("disk-1", "node-a");
    assert.deepEqual(await disks.loopDevicesOf("disk-1"), []);
    assert.deepEqual([...(await disks.disk("disk-1")).attachments.keys()], []);
  });

  it("a disk attached to node-a is refused to node-b, as the cloud refuses it, unless it is multi-attach", async () => {
    const { disks } = setUp();
    await disks.createDisk("rwo", mebibyte, {});
    await disks.attach("rwo", "node-a", {});
    await rejectsWith(
      disks.attach("rwo", "node-b", {}),
      "AttachedElsewhere",
      /^disk rwo is attached to node node-a; it cannot also be attached read-write to node node-b because it does not allow multi-attach: detach it first$/,
    );
    await rejectsWith(disks.deleteDisk("rwo"), "StillAttached", /still attached to node-a/);

    await disks.createDisk("rwx", mebibyte, { multiAttach: true });
    const onA = await disks.attach("rwx", "node-a", {});
    const onB = await disks.attach("rwx", "node-b", {});
    assert.equal(onB, onA, "both nodes share the machine's one loop device");
    await disks.detach("rwx", "node-a");
    assert.deepEqual(await disks.loopDevicesOf("rwx"), [onA], "node-b still uses it");
    await disks.detach("rwx", "node-b");
    assert.deepEqual(await disks.loopDevicesOf("rwx"), []);
  });

  it("an attach killed after losetup but before its record is found and reused, never a second loop device", async () => {
    const { host, disks } = setUp();
    await disks.createDisk("disk-1", mebibyte, {});
    const killed = new LoopDiskBackend({ host: killedBeforeRename(host), disksDir });
    await assert.rejects(killed.attach("disk-1", "node-a", {}), /killed here/);
    const [leftover] = await disks.loopDevicesOf("disk-1");
    assert.match(leftover ?? "", /^\/dev\/loop\d+$/);
    // The record is the one before the attach, whole and readable.
    assert.deepEqual([...(await disks.disk("disk-1")).attachments.keys()], []);

    const restarted = new LoopDiskBackend({ host, disksDir });
    assert.equal(await restarted.attach("disk-1", "node-a", {}), leftover);
    assert.deepEqual(await restarted.loopDevicesOf("disk-1"), [leftover]);
  });

  it("the device of an attached disk is made again when the machine lost it, and refused to a node it is not on", async () => {
    const { host, disks } = setUp();
    await disks.createDisk("disk-1", mebibyte, {});
    const first = await disks.attach("disk-1", "node-a", {});
    assert.equal(await disks.attachedDevice("disk-1", "node-a"), first);
    await host.run("losetup", ["-d", first]);
    const again = await disks.attachedDevice("disk-1", "node-a");
    assert.match(again, /^\/dev\/loop\d+$/);
    assert.deepEqual(await disks.loopDevicesOf("disk-1"), [again]);
    await rejectsWith(
      disks.attachedDevice("disk-1", "node-b"),
      "NotFound",
      /^disk disk-1 is not attached to node node-b$/,
    );
  });

  it("a detach of a node with no recorded attachment releases what an interrupted attach left", async () => {
    const { host, disks } = setUp();
    await disks.createDisk("disk-1", mebibyte, {});
    await host.run("losetup", ["-f", "--show", `${disksDir}/disk-1.img`]);
    await disks.detach("disk-1", "node-a");
    assert.deepEqual(await disks.loopDevicesOf("disk-1"), []);
  });

  it("delete removes the file and the record; an unknown or ill-formed id is NotFound", async () => {
    const { host, disks } = setUp();
    await disks.createDisk("disk-1", mebibyte, { zone: "zone-1" });
    assert.equal((await disks.disk("disk-1")).zone, "zone-1");
    await rejectsWith(disks.createDisk("disk-1", mebibyte, {}), "AlreadyExists", /disk disk-1 already exists/);
    assert.deepEqual(
      (await disks.list()).map((disk) => disk.id),
      ["disk-1"],
    );
    await disks.deleteDisk("disk-1");
    assert.equal(await disks.has("disk-1"), false);
    assert.deepEqual(await host.readdir(disksDir), []);
    await rejectsWith(disks.disk("disk-1"), "NotFound", /disk disk-1 not found/);
    await rejectsWith(disks.disk("../etc/passwd"), "NotFound", /not a valid disk id/);
  });

  it("a damaged record is reported naming its file, and nothing is changed", async () => {
    const { host, disks } = setUp();
    await disks.createDisk("disk-1", mebibyte, {});
    await host.writeFile(`${disksDir}/disk-1.json`, '{"id": "disk-1", "sizeBytes": ');
    await assert.rejects(
      disks.attach("disk-1", "node-a", {}),
      new RegExp(
        `^Error: disk record ${disksDir}/disk-1.json is not valid JSON .*; restore it or remove the disk's files$`,
      ),
    );
    assert.deepEqual(await disks.loopDevicesOf("disk-1"), []);
    assert.equal(
      new TextDecoder().decode(await host.readFile(`${disksDir}/disk-1.json`)),
      '{"id": "disk-1", "sizeBytes": ',
    );
  });
});
