import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolume, Pod } from "kubernetes-types/core/v1.js";
import { mapBlockVolume, unmapBlockVolume, unmapDeviceForAllPods } from "../../block/map-block-volume.ts";
import { VolumeSpec } from "../../spec.ts";
import { type SimNodeFixture, settle, simNode } from "../../testing/sim-node.ts";
import { LocalPlugin } from "./local-plugin.ts";

const uid = "u-local";
const podDir = `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~local-volume/local-pv`;
const globalMount = "/var/lib/kubelet/plugins/kubernetes.io/local-volume/mounts/local-pv";
const pod: Pod = { metadata: { name: "db-0", namespace: "default", uid }, spec: { containers: [] } };

function localPv(path: string, extra: Partial<NonNullable<PersistentVolume["spec"]>> = {}): VolumeSpec {
  return VolumeSpec.fromPersistentVolume({
    metadata: { name: "local-pv" },
    spec: {
      accessModes: ["ReadWriteOnce"],
      local: { path },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["node-1"] }] },
          ],
        },
      },
      ...extra,
    },
  });
}

function localPlugin(fixture: SimNodeFixture): LocalPlugin {
  const plugin = new LocalPlugin();
  plugin.init(fixture.volumeHost);
  return plugin;
}

async function mountFully(fixture: SimNodeFixture, spec: VolumeSpec): Promise<void> {
  const plugin = localPlugin(fixture);
  const deviceMounter = plugin.newDeviceMounter();
  const deviceMountPath = await deviceMounter.getDeviceMountPath(spec);
  await settle(fixture.clock, deviceMounter.mountDevice(spec, "", deviceMountPath, {}));
  await settle(fixture.clock, plugin.newMounter(spec, pod).setUp({}));
}

async function unmountFully(fixture: SimNodeFixture, spec: VolumeSpec): Promise<void> {
  const plugin = localPlugin(fixture);
  await settle(fixture.clock, plugin.newUnmounter("local-pv", uid).tearDown());
  const deviceMountPath = await plugin.newDeviceMounter().getDeviceMountPath(spec);
  await settle(fixture.clock, plugin.newDeviceUnmounter().unmountDevice(deviceMountPath));
}

async function attachedDisk(fixture: SimNodeFixture): Promise<string> {
  fixture.world.disks.createDisk("ssd-1", 64 << 20);
  return settle(fixture.clock, fixture.world.disks.attach("ssd-1", fixture.host.nodeName));
}

describe("local PV backed by a directory", () => {
  it("bind-mounts the directory into the pod; data lands in the node's directory and stays after teardown", async () => {
    const fixture = await simNode();
    await fixture.host.mkdir("/mnt/disks/vol1", 0o755, { recursive: true });
    const spec = localPv("/mnt/disks/vol1");
    assert.equal(await localPlugin(fixture).newDeviceMounter().getDeviceMountPath(spec), "/mnt/disks/vol1");
    await mountFully(fixture, spec);
    await fixture.host.writeFile(`${podDir}/row.txt`, "42");
    assert.equal(Buffer.from(await fixture.host.readFile("/mnt/disks/vol1/row.txt")).toString(), "42");

    await unmountFully(fixture, spec);
    await assert.rejects(fixture.host.stat(podDir), /no such file or directory/);
    assert.equal(Buffer.from(await fixture.host.readFile("/mnt/disks/vol1/row.txt")).toString(), "42");
    assert.equal(
      (await fixture.host.stat("/mnt/disks/vol1")).type,
      "directory",
      "the user's directory is never removed",
    );
  });

  it("refuses a path that is neither a directory nor a block device", async () => {
    const fixture = await simNode();
    await fixture.host.mkdir("/mnt/disks", 0o755, { recursive: true });
    await fixture.host.writeFile("/mnt/disks/file", "x");
    await assert.rejects(localPlugin(fixture).newDeviceMounter().getDeviceMountPath(localPv("/mnt/disks/file")), {
      message: "only directory and block device are supported",
    });
  });
});

describe("local PV backed by a block device", () => {
  it("formats the empty device once, mounts it per node, and keeps the bytes across remounts", async () => {
    const fixture = await simNode();
    const devicePath = await attachedDisk(fixture);
    const spec = localPv(devicePath);
    assert.equal(await localPlugin(fixture).newDeviceMounter().getDeviceMountPath(spec), globalMount);
    await mountFully(fixture, spec);
    await fixture.host.writeFile(`${podDir}/row.txt`, "persisted");
    await unmountFully(fixture, spec);
    assert.equal(
      (await fixture.host.mountInfo()).some((mount) => mount.mountPoint === globalMount),
      false,
    );

    await mountFully(fixture, spec);
    assert.equal(Buffer.from(await fixture.host.readFile(`${podDir}/row.txt`)).toString(), "persisted");
    const mkfsRuns = fixture.commands.filter((command) => command.command.startsWith("mkfs"));
    assert.equal(mkfsRuns.length, 1, "a device with a filesystem is never formatted again");
    assert.equal((await fixture.host.mountInfo()).find((mount) => mount.mountPoint === globalMount)?.fsType, "ext4");
  });

  it("maps the device itself for raw block use", async () => {
    const fixture = await simNode();
    const devicePath = await attachedDisk(fixture);
    const plugin = localPlugin(fixture);
    const mapper = plugin.newBlockVolumeMapper(localPv(devicePath, { volumeMode: "Block" }), pod);
    assert.equal(await mapper.mapPodDevice?.(), devicePath);
    assert.equal(
      await mapper.getGlobalMapPath(localPv(devicePath)),
      "/var/lib/kubelet/plugins/kubernetes.io~local-volume/volumeDevices/local-pv",
    );
    assert.deepEqual(mapper.getPodDeviceMapPath(), {
      dir: `/var/lib/kubelet/pods/${uid}/volumeDevices/kubernetes.io~local-volume`,
      linkName: "local-pv",
    });
  });

  it("maps and unmaps the device for a pod, leaving the disk attached", async () => {
    const fixture = await simNode();
    const devicePath = await attachedDisk(fixture);
    const plugin = localPlugin(fixture);
    const spec = localPv(devicePath, { volumeMode: "Block" });
    const mapper = plugin.newBlockVolumeMapper(spec, pod);
    const device = (await mapper.mapPodDevice?.()) ?? "";
    const { dir, linkName } = mapper.getPodDeviceMapPath();
    const paths = {
      globalMapPath: await mapper.getGlobalMapPath(spec),
      podDeviceMapPath: dir,
      volumeMapName: linkName,
      podUID: uid,
    };
    const context = { host: fixture.node.host, mounter: fixture.mounter, logger: fixture.logger };
    await settle(fixture.clock, mapBlockVolume(context, device, paths));
    assert.equal((await fixture.host.stat(`${dir}/local-pv`)).type, "blockDevice");
    await settle(fixture.clock, unmapBlockVolume(context, paths));
    const unmapper = plugin.newBlockVolumeUnmapper("local-pv", uid);
    await settle(
      fixture.clock,
      unmapDeviceForAllPods(
        context,
        paths.globalMapPath,
        device,
        () => unmapper.tearDownDevice?.(paths.globalMapPath, device) ?? Promise.resolve(),
      ),
    );
    assert.deepEqual(
      fixture.host.blockDevices().map((blockDevice) => blockDevice.kind),
      ["disk"],
      "only the disk itself remains",
    );
  });

  it("recovers the device from the mount table after a kubelet restart", async () => {
    const fixture = await simNode();
    const devicePath = await attachedDisk(fixture);
    await mountFully(fixture, localPv(devicePath));
    const { spec } = await localPlugin(fixture).constructVolumeSpec("local-pv", podDir);
    const source = (await fixture.host.mountInfo()).find((mount) => mount.mountPoint === globalMount)?.source;
    assert.ok(source?.startsWith("/dev/"));
    assert.equal(spec.persistentVolume?.spec?.local?.path, source);
    assert.equal(spec.volumeMode(), "Filesystem");
  });
});
