import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  boundSimDiskClaim,
  podUsing,
  simDiskVolumeName,
  type VolumeManagerEnv,
  volumeManagerEnv,
} from "./testing/volume-manager-env.ts";
import { finishPodSync, mountPointsUnder, startPodSync } from "./testing/wait.ts";

const globalMount = "/var/lib/kubelet/plugins/kvol.io/sim-disk/mounts/disk-1";
const diskVolume = simDiskVolumeName("disk-1");

function claimPod(name: string, claimName: string, asDevice = false) {
  return podUsing(name, [{ volume: { name: "data", persistentVolumeClaim: { claimName } }, asDevice }]);
}

/** The node status loop's first write after the pod was added, then the controller's attach. */
async function reportInUseThenAttach(env: VolumeManagerEnv, diskId: string): Promise<void> {
  await env.clock.advanceBy(200);
  await env.reportVolumesInUse();
  await env.clock.advanceBy(1_000);
  await env.attachDisk(diskId);
}

describe("KubeletVolumeManager: controller-attached volumes", () => {
  it("reports the volume in use, waits for the controller's attach, then mounts the device and the pod", async () => {
    const env = await volumeManagerEnv();
    await boundSimDiskClaim(env, "data", "disk-1");
    const pod = await env.addPod(claimPod("db", "data"));
    const uid = pod.metadata?.uid ?? "";
    const sync = startPodSync(env, pod);
    await env.clock.advanceBy(200);
    assert.equal(env.manager.statesHaveBeenSynced(), true);
    assert.deepEqual(env.manager.getVolumesInUse(), [diskVolume], "in use from the moment it is desired");

    await env.reportVolumesInUse();
    await env.clock.advanceBy(5_000);
    assert.equal(env.manager.asw.volumeExists(diskVolume), false, "not attached according to node status yet");
    assert.deepEqual(await mountPointsUnder(env, "/var/lib/kubelet"), []);

    const devicePath = await env.attachDisk("disk-1");
    const outcome = await finishPodSync(env, sync);
    assert.equal(outcome.error, undefined);
    const podDir = `/var/lib/kubelet/pods/${uid}/volumes/kvol.io~sim-disk/pv-disk-1`;
    assert.deepEqual(await mountPointsUnder(env, "/var/lib/kubelet"), [globalMount, podDir].sort());
    const attached = env.manager.asw.getAttachedVolume(diskVolume);
    assert.equal(attached?.devicePath, devicePath);
    assert.equal(attached?.deviceMountState, "DeviceGloballyMounted");
    assert.equal(attached?.deviceMountPath, globalMount);

    env.pods.remove(uid);
    await env.clock.advanceBy(1_000);
    assert.deepEqual(await mountPointsUnder(env, "/var/lib/kubelet"), []);
    assert.equal(env.manager.asw.volumeExists(diskVolume), false, "forgotten as detached once the device is unmounted");
    assert.deepEqual(env.manager.getVolumesInUse(), [], "the next node status write lets the controller detach");
  });

  it("does not verify the attach before the volume was reported in use", async () => {
    const env = await volumeManagerEnv();
    await boundSimDiskClaim(env, "data", "disk-1");
    await env.attachDisk("disk-1");
    const pod = await env.addPod(claimPod("db", "data"));
    const sync = startPodSync(env, pod);
    await env.clock.advanceBy(10_000);
    assert.equal(sync.outcome, undefined);
    assert.equal(env.manager.asw.volumeExists(diskVolume), false);
    assert.equal(
      env.logs.lines().some((line) => line.includes("VerifyControllerAttachedVolume")),
      false,
      "not even attempted while unreported",
    );
    await env.reportVolumesInUse();
    assert.equal((await finishPodSync(env, sync)).error, undefined);
  });

  it("maps a raw block volume into the pod and reports it with SuccessfulMountVolume events", async () => {
    const env = await volumeManagerEnv();
    await boundSimDiskClaim(env, "raw", "disk-2", "Block");
    const pod = await env.addPod(claimPod("db", "raw", true));
    const uid = pod.metadata?.uid ?? "";
    const sync = startPodSync(env, pod);
    await reportInUseThenAttach(env, "disk-2");
    assert.equal((await finishPodSync(env, sync)).error, undefined);

    const link = `/var/lib/kubelet/pods/${uid}/volumeDevices/kvol.io~sim-disk/pv-disk-2`;
    // The pod's link points at the device itself (the by-id symlink resolved).
    assert.equal(await env.host.readlink(link), "/dev/sdb");
    assert.equal((await env.host.stat(link)).type, "blockDevice");
    assert.deepEqual(env.manager.getMountedVolumesForPod(uid), new Map([["data", link]]));
    const globalMapPath = "/var/lib/kubelet/plugins/kvol.io/sim-disk/volumeDevices/disk-2";
    const mapped = (await env.events()).filter((event) => event.reason === "SuccessfulMountVolume");
    assert.deepEqual(
      mapped.map((event) => [event.type, event.message]),
      [
        ["Normal", `MapVolume.MapPodDevice succeeded for volume "pv-disk-2" globalMapPath "${globalMapPath}"`],
        [
          "Normal",
          `MapVolume.MapPodDevice succeeded for volume "pv-disk-2" volumeMapPath "/var/lib/kubelet/pods/${uid}/volumeDevices/kvol.io~sim-disk"`,
        ],
      ],
    );

    env.pods.remove(uid);
    await env.clock.advanceBy(1_000);
    await assert.rejects(env.host.lstat(link), /no such file or directory/);
    assert.equal(env.manager.asw.volumeExists(simDiskVolumeName("disk-2")), false);
    assert.equal(
      env.host.blockDevices().filter((device) => device.path.startsWith("/dev/loop")).length,
      0,
      "the loop device holding the disk is released",
    );
  });

  it("refuses a Block claim used through volumeMounts with Kubernetes' text", async () => {
    const env = await volumeManagerEnv();
    await boundSimDiskClaim(env, "raw", "disk-3", "Block");
    const pod = await env.addPod(claimPod("db", "raw", false));
    const outcome = await finishPodSync(env, startPodSync(env, pod));
    assert.equal(
      outcome.error?.message,
      "unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: " +
        "volume data has volumeMode Block, but is specified in volumeMounts",
    );
  });
});

describe("KubeletVolumeManager: failures of attachable volumes", () => {
  it("reports FailedMapVolume when the device listed in node status never appears", async () => {
    const env = await volumeManagerEnv();
    await boundSimDiskClaim(env, "raw", "disk-4", "Block");
    const pod = await env.addPod(claimPod("db", "raw", true));
    await env.clock.advanceBy(200);
    await env.reportVolumesInUse();
    // The controller claims the attach happened, but the disk never shows up on the node.
    await env.client.nodes.mutate(
      "",
      "node-1",
      (draft) => {
        draft.status = { ...draft.status, volumesAttached: [{ name: simDiskVolumeName("disk-4"), devicePath: "" }] };
      },
      { subresource: "status" },
    );
    await env.reportVolumesInUse();
    const sync = startPodSync(env, pod);
    await env.clock.advanceBy(11 * 60_000);
    assert.match(sync.outcome?.error?.message ?? "", /^unmounted volumes=\[data\], unattached volumes=\[\]/);
    const failures = (await env.events()).filter((event) => event.reason === "FailedMapVolume");
    assert.deepEqual(
      failures.map((event) => [event.type, event.message]),
      [
        [
          "Warning",
          'MapVolume.WaitForAttach failed for volume "pv-disk-4" : Could not find attached disk "disk-4". Timeout waiting for mount paths to be created.',
        ],
      ],
    );
  });
});
