import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ActualStateOfWorld } from "../../../kubelet/volumemanager/cache/actual-state-of-world.ts";
import { inTreePluginManager, simDiskSpec } from "../../../kubelet/volumemanager/testing/test-plugins.ts";
import type { KubeletActualStateOfWorldUpdater, MarkVolumeOptions } from "../types.ts";
import { RecordingActualState } from "./recording-actual-state.ts";

const disk = "kvol.io/sim-disk/disk-1";
const mount: MarkVolumeOptions = {
  podName: "uid-a",
  podUID: "uid-a",
  volumeName: disk,
  outerVolumeSpecName: "data",
  volumeSpec: simDiskSpec("disk-1"),
  volumeMountState: "VolumeMounted",
};

/** Attaches and mounts the disk for one pod, then tries to forget it; returns what the refusal said. */
function detachWhileMounted(asw: KubeletActualStateOfWorldUpdater): unknown {
  asw.markVolumeAsAttached(disk, simDiskSpec("disk-1"), "node-1", "/dev/sdb");
  asw.markVolumeAsMounted(mount);
  try {
    asw.markVolumeAsDetached(disk, "node-1");
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("RecordingActualState", () => {
  it("refuses to mark a volume detached while a pod mounts it, exactly as the kubelet's actual state does", async () => {
    const real = detachWhileMounted(new ActualStateOfWorld("node-1", await inTreePluginManager()));
    const recording = new RecordingActualState();
    const recorded = detachWhileMounted(recording);
    const expected = {
      name: "InvariantViolation",
      message: `invariant violated for volume "${disk}": failed to DeleteVolume "${disk}", it still has 1 mountedPods`,
    };
    assert.throws(() => {
      throw real;
    }, expected);
    assert.throws(() => {
      throw recorded;
    }, expected);
    assert.equal(recording.attachments.get(`${disk}@node-1`)?.state, "attached", "the refused call changed nothing");
    recording.markVolumeAsUnmounted("uid-a", disk);
    recording.markVolumeAsDetached(disk, "node-1");
    assert.equal(recording.attachments.size, 0);
  });
});
