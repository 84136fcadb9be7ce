import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MarkVolumeOptions } from "../../../volume/operationexecutor/types.ts";
import type { VolumeSpec } from "../../../volume/spec.ts";
import { emptyDirSpec, inTreePluginManager, secretSpec, simDiskSpec } from "../testing/test-plugins.ts";
import { ActualStateOfWorld } from "./actual-state-of-world.ts";

const disk = "kvol.io/sim-disk/disk-1";

function mounted(podName: string, volumeName: string, spec: VolumeSpec, outer = spec.name()): MarkVolumeOptions {
  return {
    podName,
    podUID: podName,
    volumeName,
    outerVolumeSpecName: outer,
    volumeSpec: spec,
    volumeMountState: "VolumeMounted",
  };
}

async function aswWithDisk(): Promise<ActualStateOfWorld> {
  const asw = new ActualStateOfWorld("node-1", await inTreePluginManager());
  asw.markVolumeAsAttached(disk, simDiskSpec("disk-1"), "node-1", "/dev/sdb");
  return asw;
}

describe("ActualStateOfWorld", () => {
  it("answers PodExistsInVolume through attach, uncertain mount, mount and remount", async () => {
    const asw = new ActualStateOfWorld("node-1", await inTreePluginManager());
    assert.deepEqual(asw.podExistsInVolume("uid-a", disk), { kind: "notAttached" });
    asw.markVolumeAsAttached(disk, simDiskSpec("disk-1"), "node-1", "/dev/sdb");
    assert.deepEqual(asw.podExistsInVolume("uid-a", disk), { kind: "notMounted", devicePath: "/dev/sdb" });
    asw.markVolumeMountAsUncertain(mounted("uid-a", disk, simDiskSpec("disk-1")));
    assert.deepEqual(asw.podExistsInVolume("uid-a", disk), { kind: "notMounted", devicePath: "/dev/sdb" });
    assert.equal(asw.podRemovedFromVolume("uid-a", disk), false, "an uncertain mount still needs teardown");
    asw.markVolumeAsMounted(mounted("uid-a", disk, simDiskSpec("disk-1")));
    assert.deepEqual(asw.podExistsInVolume("uid-a", disk), { kind: "mounted", devicePath: "/dev/sdb" });
    asw.markRemountRequired("uid-a");
    assert.equal(asw.podExistsInVolume("uid-a", disk).kind, "mounted", "a disk is never remounted for content");
  });

  it("says a pod has its volumes mounted only once each named one is mounted for it, not uncertain", async () => {
    const asw = await aswWithDisk();
    assert.equal(asw.podHasVolumesMounted("uid-a", []), true, "a pod without volumes waits for nothing");
    assert.equal(asw.podHasVolumesMounted("uid-a", ["data"]), false);
    asw.markVolumeMountAsUncertain(mounted("uid-a", disk, simDiskSpec("disk-1"), "data"));
    assert.equal(asw.podHasVolumesMounted("uid-a", ["data"]), false, "an uncertain mount is not mounted yet");
    asw.markVolumeAsMounted(mounted("uid-a", disk, simDiskSpec("disk-1"), "data"));
    assert.equal(asw.podHasVolumesMounted("uid-a", ["data"]), true);
    assert.equal(asw.podHasVolumesMounted("uid-a", ["data", "logs"]), false, "logs is not mounted");
    assert.equal(asw.podHasVolumesMounted("uid-b", ["data"]), false, "another pod's mount does not count");
  });

  it("flags one mounted volume for SetUp again whatever its plugin, until it is mounted again", async () => {
    const asw = await aswWithDisk();
    assert.equal(asw.markVolumeRemountRequired("uid-a", disk), false, "nothing mounted for the pod");
    asw.markVolumeMountAsUncertain(mounted("uid-a", disk, simDiskSpec("disk-1")));
    assert.equal(asw.markVolumeRemountRequired("uid-a", disk), false, "an uncertain mount is mounted again anyway");
    asw.markVolumeAsMounted(mounted("uid-a", disk, simDiskSpec("disk-1")));
    const generation = asw.generation;
    assert.equal(asw.markVolumeRemountRequired("uid-a", disk), true);
    assert.equal(asw.podExistsInVolume("uid-a", disk).kind, "remountRequired");
    assert.ok(asw.generation > generation, "the reconciler's next pass is not skipped");
    asw.markVolumeAsMounted(mounted("uid-a", disk, simDiskSpec("disk-1")));
    assert.equal(asw.podExistsInVolume("uid-a", disk).kind, "mounted");
  });

  it("flags secret, not emptyDir, volumes for remount after a pod sync", async () => {
    const asw = new ActualStateOfWorld("node-1", await inTreePluginManager());
    for (const [name, spec] of [
      ["kubernetes.io/secret/uid-a-creds", secretSpec("creds")],
      ["kubernetes.io/empty-dir/uid-a-tmp", emptyDirSpec("tmp")],
    ] as const) {
      asw.markVolumeAsAttached(name, spec, "node-1", "");
      asw.markVolumeAsMounted(mounted("uid-a", name, spec));
    }
    asw.markRemountRequired("uid-a");
    assert.equal(asw.podExistsInVolume("uid-a", "kubernetes.io/secret/uid-a-creds").kind, "remountRequired");
    assert.equal(asw.podExistsInVolume("uid-a", "kubernetes.io/empty-dir/uid-a-tmp").kind, "mounted");
    asw.markVolumeAsMounted(mounted("uid-a", "kubernetes.io/secret/uid-a-creds", secretSpec("creds")));
    assert.equal(
      asw.podExistsInVolume("uid-a", "kubernetes.io/secret/uid-a-creds").kind,
      "mounted",
      "SetUp again clears it",
    );
  });

  it("tracks the device mount and refuses to forget a volume some pod still mounts", async () => {
    const asw = await aswWithDisk();
    asw.markDeviceAsMounted(disk, "/dev/sdb", "/global/disk-1");
    asw.markVolumeAsMounted(mounted("uid-a", disk, simDiskSpec("disk-1")));
    assert.equal(asw.getDeviceMountState(disk), "DeviceGloballyMounted");
    assert.throws(() => asw.markVolumeAsDetached(disk, "node-1"), {
      name: "InvariantViolation",
      message: `invariant violated for volume "${disk}": failed to DeleteVolume "${disk}", it still has 1 mountedPods`,
    });
    assert.equal(asw.volumeExists(disk), true, "the refused change left the state as it was");
    assert.equal(asw.isVolumeMountedElsewhere(disk, "uid-b"), true);
    assert.equal(asw.isVolumeMountedElsewhere(disk, "uid-a"), false);
    asw.markVolumeAsUnmounted("uid-a", disk);
    assert.deepEqual(
      asw.getUnmountedVolumes().map((volume) => [volume.volumeName, volume.deviceMountState]),
      [[disk, "DeviceGloballyMounted"]],
    );
    asw.markDeviceAsUnmounted(disk);
    asw.markVolumeAsDetached(disk, "node-1");
    assert.equal(asw.volumeExists(disk), false);
  });

  it("refuses a device or pod mount change for a volume that is not attached, naming the volume", async () => {
    const asw = new ActualStateOfWorld("node-1", await inTreePluginManager());
    const generation = asw.generation;
    assert.throws(() => asw.markDeviceAsMounted(disk, "/dev/sdb", "/global/disk-1"), {
      name: "InvariantViolation",
      message: `invariant violated for volume "${disk}": markDeviceAsMounted: no volume with the name "${disk}" exists in the list of attached volumes`,
    });
    assert.throws(() => asw.markDeviceAsUncertain(disk, "/dev/sdb", "/global/disk-1"), {
      message: `invariant violated for volume "${disk}": markDeviceAsUncertain: no volume with the name "${disk}" exists in the list of attached volumes`,
    });
    assert.throws(() => asw.markVolumeAsMounted(mounted("uid-a", disk, simDiskSpec("disk-1"))), {
      message: `invariant violated for volume "${disk}": markVolumeAsMounted: no volume with the name "${disk}" exists in the list of attached volumes`,
    });
    assert.equal(asw.generation, generation, "nothing changed");
    assert.equal(asw.getDeviceMountState(disk), "DeviceNotMounted");
  });

  it("refuses to unmount a device a pod still mounts, and to forget a volume whose device is mounted", async () => {
    const asw = await aswWithDisk();
    asw.markDeviceAsMounted(disk, "/dev/sdb", "/global/disk-1");
    asw.markVolumeAsMounted(mounted("uid-a", disk, simDiskSpec("disk-1")));
    assert.throws(() => asw.markDeviceAsUnmounted(disk), {
      name: "InvariantViolation",
      message: `invariant violated for volume "${disk}": markDeviceAsUnmounted while 1 pods still have it mounted`,
    });
    assert.equal(asw.getDeviceMountState(disk), "DeviceGloballyMounted");
    asw.markVolumeAsUnmounted("uid-a", disk);
    assert.throws(() => asw.markVolumeAsDetached(disk, "node-1"), {
      name: "InvariantViolation",
      message: `invariant violated for volume "${disk}": marked detached while its device mount state is DeviceGloballyMounted`,
    });
    assert.equal(asw.volumeExists(disk), true);
  });

  it("keeps reconstructed mounts uncertain until a mount succeeds, then forgets they were reconstructed", async () => {
    const asw = new ActualStateOfWorld("node-1", await inTreePluginManager());
    asw.addAttachUncertainReconstructedVolume(disk, simDiskSpec("disk-1"), "");
    const found = {
      ...mounted("uid-a", disk, simDiskSpec("disk-1")),
      volumeMountState: "VolumeMountUncertain" as const,
    };
    assert.equal(asw.checkAndMarkVolumeAsUncertainViaReconstruction(found), true);
    assert.equal(asw.checkAndMarkVolumeAsUncertainViaReconstruction(found), false, "a known mount wins");
    asw.markDeviceAsUncertain(disk, "", "/global/disk-1");
    assert.equal(asw.isVolumeReconstructed(disk, "uid-a"), true);
    assert.equal(asw.isVolumeDeviceReconstructed(disk), true);
    assert.equal(asw.getAttachedVolume(disk)?.pluginIsAttachable, false, "attachability unknown until node status");

    asw.updateReconstructedDevicePath(disk, "/dev/sdb");
    asw.updateReconstructedVolumeAttachability(disk, true);
    assert.equal(asw.getAttachedVolume(disk)?.devicePath, "/dev/sdb");
    assert.equal(asw.getAttachedVolume(disk)?.pluginIsAttachable, true);

    asw.markVolumeAsMounted(mounted("uid-a", disk, simDiskSpec("disk-1"), "data"));
    assert.equal(asw.isVolumeReconstructed(disk, "uid-a"), false);
    assert.deepEqual(
      asw.getMountedVolumesForPod("uid-a").map((volume) => volume.outerVolumeSpecName),
      ["data"],
      "the real outer name replaces the spec name found on disk",
    );
  });
});
