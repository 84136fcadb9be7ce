import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expectErrno } from "../host-contract.ts";
import { newTestWorld } from "./testing/sim-test-world.ts";

const podVolume = "/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~empty-dir/cache";
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

describe("SimHost reboot and power", () => {
  it("a reboot loses mounts, tmpfs contents and processes, but keeps pod directories and disk data", async () => {
    const { world, clock } = newTestWorld();
    const node = world.addNode("node-a");
    world.disks.createDisk("disk-1", 1024 * 1024 * 1024);
    const attached = world.disks.attach("disk-1", "node-a");
    await clock.runUntilIdle();
    await attached;
    const disk = "/dev/disk/by-id/virtio-disk-1";
    assert.equal((await node.run("mkfs.ext4", ["-F", disk])).exitCode, 0);
    assert.equal((await node.run("mount", [disk, "/mnt"])).exitCode, 0);
    await node.writeFile("/mnt/kept", "on disk");
    await node.mkdir(podVolume, 0o777, { recursive: true });
    assert.equal((await node.run("mount", ["-t", "tmpfs", "tmpfs", podVolume])).exitCode, 0);
    await node.writeFile(`${podVolume}/lost`, "in memory");
    await node.writeFile("/var/lib/kubelet/pods/uid-1/etc-hosts", "kept");
    const daemon = await node.startDaemon({ name: "driver", command: "true", args: [], scope: "own" });
    const mountsBefore = (await node.mountInfo()).length;

    node.reboot();

    assert.equal(node.bootCount, 2);
    assert.equal(await node.isProcessAlive(daemon.pid), false);
    assert.deepEqual(await node.daemons(), []);
    assert.equal((await node.mountInfo()).length, mountsBefore - 2);
    assert.deepEqual(await node.readdir(podVolume), [], "the tmpfs is gone, its directory is back to empty");
    assert.equal(text(await node.readFile("/var/lib/kubelet/pods/uid-1/etc-hosts")), "kept");
    assert.equal((await node.stat(disk)).type, "blockDevice", "the still-attached disk reappears");
    assert.equal((await node.run("mount", [disk, "/mnt"])).exitCode, 0);
    assert.equal(text(await node.readFile("/mnt/kept")), "on disk");
  });

  it("a powered-off node fails every operation with EHOSTDOWN until it is powered on", async () => {
    const { world } = newTestWorld();
    const node = world.addNode("node-a");
    await node.writeFile("/var/marker", "x");
    node.powerOff();
    assert.equal(node.poweredOn, false);
    await expectErrno(node.stat("/var/marker"), "EHOSTDOWN");
    await expectErrno(node.run("mount", ["-t", "tmpfs", "tmpfs", "/mnt"]), "EHOSTDOWN");
    await expectErrno(node.mountInfo(), "EHOSTDOWN");
    node.powerOn();
    assert.equal(text(await node.readFile("/var/marker")), "x");
  });

  it("an operation hanging on an NFS server fails with EHOSTDOWN when its node powers off", async () => {
    const { world, clock } = newTestWorld();
    const server = world.addNfsServer("10.1.1.1");
    server.addExport("/data");
    server.setReachable(false);
    const node = world.addNode("node-a");
    const mount = node.run("mount", ["-t", "nfs", "10.1.1.1:/data", "/mnt"]);
    const failed = expectErrno(mount, "EHOSTDOWN");
    await clock.advanceBy(1_000);
    node.powerOff();
    await failed;
    node.powerOn();
    server.setReachable(true);
    await clock.runUntilIdle();
    assert.equal(
      (await node.mountInfo()).some((entry) => entry.mountPoint === "/mnt"),
      false,
    );
  });

  it("an injected command latency delays the command on the virtual clock", async () => {
    const { world, clock } = newTestWorld();
    const node = world.addNode("node-a");
    node.setCommandLatency("mount", 2_000);
    let done = false;
    const mount = node.run("mount", ["-t", "tmpfs", "tmpfs", "/mnt"]).then((result) => {
      done = true;
      return result;
    });
    await clock.advanceBy(1_999);
    assert.equal(done, false);
    await clock.advanceBy(1);
    assert.equal((await mount).exitCode, 0);
  });
});
