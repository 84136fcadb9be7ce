import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { VolumeSpec } from "../../../volume/spec.ts";
import { emptyDirSpec, inTreePluginManager, pod, simDiskSpec } from "../testing/test-plugins.ts";
import { DesiredStateOfWorld, maxPodErrors } from "./desired-state-of-world.ts";

describe("DesiredStateOfWorld", () => {
  it("shares one entry per attachable volume and keeps per-pod entries for the others", async () => {
    const dsw = new DesiredStateOfWorld(await inTreePluginManager());
    const disk = dsw.addPodToVolume("uid-a", pod("uid-a"), simDiskSpec("disk-1"), "data", "");
    assert.equal(dsw.addPodToVolume("uid-b", pod("uid-b"), simDiskSpec("disk-1"), "data", ""), disk);
    assert.equal(disk, "kvol.io/sim-disk/disk-1");
    const scratch = dsw.addPodToVolume("uid-a", pod("uid-a"), emptyDirSpec("scratch"), "scratch", "");
    assert.equal(scratch, "kubernetes.io/empty-dir/uid-a-scratch");

    const entries = dsw
      .getVolumesToMount()
      .map((volume) => [volume.volumeName, volume.podName, volume.pluginIsAttachable]);
    assert.deepEqual(entries, [
      [disk, "uid-a", true],
      [disk, "uid-b", true],
      [scratch, "uid-a", false],
    ]);
    assert.equal(dsw.volumeExistsWithSpecName("uid-b", "pv-disk-1"), true);
    assert.equal(dsw.volumeExistsWithSpecName("uid-b", "scratch"), false);

    dsw.deletePodFromVolume("uid-a", disk);
    assert.equal(dsw.volumeExists(disk), true, "still wanted by uid-b");
    dsw.deletePodFromVolume("uid-b", disk);
    assert.equal(dsw.volumeExists(disk), false);
    assert.deepEqual([...dsw.getPods()], ["uid-a"]);
  });

  it("marks exactly the volumes the node reported in use", async () => {
    const dsw = new DesiredStateOfWorld(await inTreePluginManager());
    const one = dsw.addPodToVolume("uid-a", pod("uid-a"), simDiskSpec("disk-1"), "data", "");
    const two = dsw.addPodToVolume("uid-a", pod("uid-a"), simDiskSpec("disk-2"), "logs", "");
    dsw.markVolumesReportedInUse([one]);
    const reported = () =>
      Object.fromEntries(dsw.getVolumesToMount().map((volume) => [volume.volumeName, volume.reportedInUse]));
    assert.deepEqual(reported(), { [one]: true, [two]: false });
    dsw.markVolumesReportedInUse([two]);
    assert.deepEqual(reported(), { [one]: false, [two]: true });
  });

  it("names the volume when no plugin supports it", async () => {
    const dsw = new DesiredStateOfWorld(await inTreePluginManager());
    assert.throws(() => dsw.addPodToVolume("uid-a", pod("uid-a"), VolumeSpec.fromVolume({ name: "odd" }), "odd", ""), {
      message: 'failed to get Plugin from volumeSpec for volume "odd" err=no volume plugin matched',
    });
  });

  it("keeps at most ten distinct errors per pod and hands them out sorted, once", async () => {
    const dsw = new DesiredStateOfWorld(await inTreePluginManager());
    for (let i = maxPodErrors + 5; i > 0; i--) dsw.addErrorToPod("uid-a", `error ${String(i).padStart(2, "0")}`);
    dsw.addErrorToPod("uid-a", "error 15");
    const errors = dsw.popPodErrors("uid-a");
    assert.equal(errors.length, maxPodErrors);
    assert.deepEqual(errors, [...errors].sort());
    assert.equal(errors[0], "error 06");
    assert.deepEqual(dsw.popPodErrors("uid-a"), []);
  });
});
