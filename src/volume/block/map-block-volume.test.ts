import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pluginGlobalMapPath, podVolumeDeviceDir } from "../paths.ts";
import { commandLine } from "../testing/recording-host.ts";
import { type SimNodeFixture, settle, simNode } from "../testing/sim-node.ts";
import { type BlockVolumePaths, mapBlockVolume, unmapBlockVolume, unmapDeviceForAllPods } from "./map-block-volume.ts";

async function attachedDisk(fixture: SimNodeFixture): Promise<string> {
  fixture.world.disks.createDisk("disk-1", 1 << 20);
  return settle(fixture.clock, fixture.world.disks.attach("disk-1", fixture.host.nodeName));
}

function paths(fixture: SimNodeFixture, podUID: string): BlockVolumePaths {
  return {
    globalMapPath: pluginGlobalMapPath(fixture.rootDir, "kvol.io/sim-disk", "disk-1"),
    podDeviceMapPath: podVolumeDeviceDir(fixture.rootDir, podUID, "kvol.io/sim-disk"),
    volumeMapName: "pv-1",
    podUID,
  };
}

describe("mapping a raw block volume into pods", () => {
  it("bind-mounts the device per pod, links it into the pod and holds it with a loop device", async () => {
    const fixture = await simNode();
    const devicePath = await attachedDisk(fixture);
    const context = { host: fixture.node.host, mounter: fixture.mounter, logger: fixture.logger };
    const podPaths = paths(fixture, "pod-a");
    await settle(fixture.clock, mapBlockVolume(context, devicePath, podPaths));

    const podLink = `${podPaths.podDeviceMapPath}/pv-1`;
    assert.equal(await fixture.host.readlink(podLink), devicePath);
    assert.equal((await fixture.host.stat(podLink)).type, "blockDevice");
    assert.equal((await fixture.host.lstat(`${podPaths.globalMapPath}/pod-a`)).type, "blockDevice");
    const losetup = fixture.commands.filter((command) => command.command === "losetup").map(commandLine);
    assert.deepEqual(losetup, [
      `losetup -j ${podPaths.globalMapPath}/pod-a`,
      `losetup -f --show ${podPaths.globalMapPath}/pod-a`,
    ]);
    assert.ok(fixture.host.blockDevices().some((device) => device.kind === "loop"));

    await assert.rejects(
      settle(fixture.clock, unmapDeviceForAllPods(context, podPaths.globalMapPath, devicePath, undefined)),
      { message: `the device "${devicePath}" is still referenced from other Pods [${podPaths.globalMapPath}/pod-a]` },
    );

    await settle(fixture.clock, unmapBlockVolume(context, podPaths));
    await assert.rejects(fixture.host.lstat(podLink), /no such file or directory/);
    await assert.rejects(fixture.host.lstat(`${podPaths.globalMapPath}/pod-a`), /no such file or directory/);
    assert.equal(
      fixture.host.blockDevices().some((device) => device.kind === "loop"),
      false,
      "no loop device leaked",
    );

    let tornDown = false;
    await settle(
      fixture.clock,
      unmapDeviceForAllPods(context, podPaths.globalMapPath, devicePath, async () => {
        tornDown = true;
      }),
    );
    assert.equal(tornDown, true);
    await assert.rejects(fixture.host.lstat(podPaths.globalMapPath), /no such file or directory/);
  });

  it("maps the same device for a second pod and unmapping one leaves the other", async () => {
    const fixture = await simNode();
    const devicePath = await attachedDisk(fixture);
    const context = { host: fixture.node.host, mounter: fixture.mounter, logger: fixture.logger };
    await settle(fixture.clock, mapBlockVolume(context, devicePath, paths(fixture, "pod-a")));
    await settle(fixture.clock, mapBlockVolume(context, devicePath, paths(fixture, "pod-b")));
    await settle(fixture.clock, unmapBlockVolume(context, paths(fixture, "pod-a")));
    const global = paths(fixture, "pod-b").globalMapPath;
    assert.deepEqual(await fixture.host.readdir(global), ["pod-b"]);
    assert.equal((await fixture.host.stat(`${paths(fixture, "pod-b").podDeviceMapPath}/pv-1`)).type, "blockDevice");
  });

  it("treats an already unmapped pod as done, with warnings", async () => {
    const fixture = await simNode();
    const context = { host: fixture.node.host, mounter: fixture.mounter, logger: fixture.logger };
    await settle(fixture.clock, unmapBlockVolume(context, paths(fixture, "pod-a")));
    assert.ok(fixture.logger.warned("couldn't find loopback device which takes file descriptor lock"));
    assert.ok(fixture.logger.warned("Unmap skipped because symlink does not exist"));
  });
});
