import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { mapBlockVolume, unmapBlockVolume, unmapDeviceForAllPods } from "../../block/map-block-volume.ts";
import { VolumeSpec } from "../../spec.ts";
import { controllerVolumeHost, type SimNodeFixture, settle, simNode } from "../../testing/sim-node.ts";
import { uniqueVolumeNameFromSpec } from "../../unique-names.ts";
import { SimDiskPlugin } from "./sim-disk-plugin.ts";

const globalMount = "/var/lib/kubelet/plugins/kvol.io/sim-disk/mounts/disk-1";

function diskPv(options: Record<string, string> = { diskId: "disk-1" }): VolumeSpec {
  return VolumeSpec.fromPersistentVolume({
    metadata: { name: "pvc-1" },
    spec: { accessModes: ["ReadWriteOnce"], flexVolume: { driver: "kvol.io/sim-disk", fsType: "ext4", options } },
  });
}

function pod(uid: string): Pod {
  return { metadata: { name: `web-${uid}`, namespace: "default", uid }, spec: { containers: [] } };
}

async function cluster(): Promise<{ node1: SimNodeFixture; node2: SimNodeFixture; controller: SimDiskPlugin }> {
  const node1 = await simNode({ nodeName: "node-1" });
  const node2 = await simNode({ nodeName: "node-2", world: node1.world });
  node1.world.disks.createDisk("disk-1", 64 << 20);
  const controller = new SimDiskPlugin({ provider: node1.world.disks });
  controller.init(controllerVolumeHost(node1.clock));
  return { node1, node2, controller };
}

function nodePlugin(fixture: SimNodeFixture): SimDiskPlugin {
  const plugin = new SimDiskPlugin();
  plugin.init(fixture.volumeHost);
  return plugin;
}

async function attachAndMount(controller: SimDiskPlugin, fixture: SimNodeFixture, uid: string): Promise<string> {
  const spec = diskPv();
  const devicePath = await settle(fixture.clock, controller.newAttacher().attach(spec, fixture.host.nodeName));
  const plugin = nodePlugin(fixture);
  const attacher = plugin.newAttacher();
  const device = await settle(fixture.clock, attacher.waitForAttach(spec, devicePath, pod(uid), 600_000));
  await settle(fixture.clock, attacher.mountDevice(spec, device, await attacher.getDeviceMountPath(spec), {}));
  const mounter = plugin.newMounter(spec, pod(uid));
  await settle(fixture.clock, mounter.setUp({}));
  return mounter.getPath();
}

async function unmountAndDetach(controller: SimDiskPlugin, fixture: SimNodeFixture, uid: string): Promise<void> {
  const plugin = nodePlugin(fixture);
  await settle(fixture.clock, plugin.newUnmounter("pvc-1", uid).tearDown());
  await settle(fixture.clock, plugin.newDeviceUnmounter().unmountDevice(globalMount));
  await settle(fixture.clock, controller.newDetacher().detach("disk-1", fixture.host.nodeName));
}

describe("kvol.io/sim-disk", () => {
  it("is named by its disk id and declared through flexVolume", async () => {
    const { controller } = await cluster();
    assert.equal(uniqueVolumeNameFromSpec(controller, diskPv()), "kvol.io/sim-disk/disk-1");
    assert.equal(
      controller.canSupport(VolumeSpec.fromVolume({ name: "x", flexVolume: { driver: "example.com/other" } })),
      false,
    );
    assert.throws(() => controller.getVolumeName(diskPv({})), {
      message:
        'volume "pvc-1": flexVolume.options.diskId is required for driver kvol.io/sim-disk (the provider\'s disk id)',
    });
  });

  it("attaches, waits for the device, formats, mounts and bind-mounts into the pod", async () => {
    const { node1, controller } = await cluster();
    const dir = await attachAndMount(controller, node1, "pod-a");
    assert.equal(dir, "/var/lib/kubelet/pods/pod-a/volumes/kvol.io~sim-disk/pvc-1");
    const mounts = await node1.host.mountInfo();
    assert.equal(mounts.find((mount) => mount.mountPoint === globalMount)?.fsType, "ext4");
    assert.ok(mounts.some((mount) => mount.mountPoint === dir));
    assert.deepEqual(
      await controller.newAttacher().volumesAreAttached([diskPv()], "node-1"),
      new Map([["pvc-1", true]]),
    );
    assert.deepEqual(
      await controller.newAttacher().volumesAreAttached([diskPv()], "node-2"),
      new Map([["pvc-1", false]]),
    );
  });

  it("keeps the bytes across unmount, detach, attach elsewhere and mount", async () => {
    const { node1, node2, controller } = await cluster();
    const dir = await attachAndMount(controller, node1, "pod-a");
    await node1.host.writeFile(`${dir}/orders.db`, "order-1");
    await unmountAndDetach(controller, node1, "pod-a");
    assert.equal(
      node1.host.blockDevices().some((device) => device.path.includes("disk-1")),
      false,
    );

    const otherDir = await attachAndMount(controller, node2, "pod-b");
    assert.equal(Buffer.from(await node2.host.readFile(`${otherDir}/orders.db`)).toString(), "order-1");
    assert.equal(node2.commands.filter((command) => command.command.startsWith("mkfs")).length, 0);
  });

  it("refuses to attach read-write to a second node", async () => {
    const { node1, node2, controller } = await cluster();
    await attachAndMount(controller, node1, "pod-a");
    await assert.rejects(
      settle(node2.clock, controller.newAttacher().attach(diskPv(), "node-2")),
      /disk disk-1 is attached to node node-1/,
    );
  });

  it("waits on the node until the device appears", async () => {
    const { node1, controller } = await cluster();
    node1.world.disks.setFaults("disk-1", { attachLatencyMs: 5_000 });
    const started = node1.clock.now();
    const attaching = controller.newAttacher().attach(diskPv(), "node-1");
    const device = await settle(
      node1.clock,
      nodePlugin(node1).newAttacher().waitForAttach(diskPv(), "", pod("pod-a"), 600_000),
    );
    assert.equal(device, "/dev/disk/by-id/virtio-disk-1");
    assert.equal(node1.clock.now() - started, 5_000);
    await settle(node1.clock, attaching);
  });

  it("gives up waiting for a device that never appears", async () => {
    const { node1 } = await cluster();
    await assert.rejects(
      settle(node1.clock, nodePlugin(node1).newAttacher().waitForAttach(diskPv(), "", pod("pod-a"), 10_000)),
      {
        message: 'Could not find attached disk "disk-1". Timeout waiting for mount paths to be created.',
      },
    );
  });

  it("refuses SetUp while nothing is mounted on the node", async () => {
    const { node1 } = await cluster();
    await assert.rejects(settle(node1.clock, nodePlugin(node1).newMounter(diskPv(), pod("pod-a")).setUp({})), {
      message: `no device is mounted at ${globalMount}`,
    });
  });

  it("finds the disk again from the mount table after a kubelet restart", async () => {
    const { node1, controller } = await cluster();
    const dir = await attachAndMount(controller, node1, "pod-a");
    const { spec } = await nodePlugin(node1).constructVolumeSpec("pvc-1", dir);
    assert.equal(spec.persistentVolume?.spec?.flexVolume?.options?.diskId, "disk-1");
  });

  it("maps the attached device into a pod in raw block mode and releases it", async () => {
    const { node1, controller } = await cluster();
    const spec = VolumeSpec.fromPersistentVolume({
      metadata: { name: "pvc-1" },
      spec: { volumeMode: "Block", flexVolume: { driver: "kvol.io/sim-disk", options: { diskId: "disk-1" } } },
    });
    const devicePath = await settle(node1.clock, controller.newAttacher().attach(spec, "node-1"));
    const plugin = nodePlugin(node1);
    const device = await settle(
      node1.clock,
      plugin.newAttacher().waitForAttach(spec, devicePath, pod("pod-a"), 600_000),
    );
    const mapper = plugin.newBlockVolumeMapper(spec, pod("pod-a"));
    const globalMapPath = await mapper.getGlobalMapPath(spec);
    assert.equal(globalMapPath, "/var/lib/kubelet/plugins/kvol.io/sim-disk/volumeDevices/disk-1");
    const { dir, linkName } = mapper.getPodDeviceMapPath();
    const paths = { globalMapPath, podDeviceMapPath: dir, volumeMapName: linkName, podUID: "pod-a" };
    const context = { host: node1.node.host, mounter: node1.mounter, logger: node1.logger };
    await settle(node1.clock, mapBlockVolume(context, device, paths));
    assert.equal(await node1.host.readlink("/var/lib/kubelet/pods/pod-a/volumeDevices/kvol.io~sim-disk/pvc-1"), device);

    await settle(node1.clock, unmapBlockVolume(context, paths));
    await settle(node1.clock, unmapDeviceForAllPods(context, globalMapPath, device, undefined));
    await settle(node1.clock, controller.newDetacher().detach("disk-1", "node-1"));
    assert.equal(node1.host.blockDevices().length, 0, "no loop device or disk left on the node");
  });
});
