/**
 * Seed 000 (spec §8.1): a StatefulSet pod is deleted and its replacement (same claim, new UID) lands
 * on the same node while the kubelet is still unmounting the old pod's device. The mount must wait
 * for UnmountDevice (same key), then mount the device again; the replacement must end up with the
 * disk's data, not with a bind mount of a half-torn-down global mount.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { commandLine } from "../../volume/testing/recording-host.ts";
import { boundSimDiskClaim, podUsing, simDiskVolumeName, volumeManagerEnv } from "./testing/volume-manager-env.ts";
import { finishPodSync, mountPointsUnder, readText, startPodSync, syncPodAndWait } from "./testing/wait.ts";

const globalMount = "/var/lib/kubelet/plugins/kvol.io/sim-disk/mounts/disk-1";
const volumeName = simDiskVolumeName("disk-1");
/** How long every umount takes on this node: long enough to add the new pod meanwhile. */
const slowUmountMs = 5_000;

function statefulPod(): Pod {
  return podUsing("web-0", [{ volume: { name: "www", persistentVolumeClaim: { claimName: "www-web-0" } } }]);
}

function podDir(pod: Pod): string {
  return `/var/lib/kubelet/pods/${pod.metadata?.uid}/volumes/kvol.io~sim-disk/pv-disk-1`;
}

describe("seed 000: pod recreated on the same node while UnmountDevice is in flight", () => {
  it("serialises the new mount behind UnmountDevice, re-runs MountDevice and keeps the data", async () => {
    const env = await volumeManagerEnv();
    await boundSimDiskClaim(env, "www-web-0", "disk-1");
    const oldPod = await env.addPod(statefulPod());
    const sync = startPodSync(env, oldPod);
    await env.clock.advanceBy(200);
    await env.reportVolumesInUse();
    await env.attachDisk("disk-1");
    assert.equal((await finishPodSync(env, sync)).error, undefined);
    await env.host.writeFile(`${podDir(oldPod)}/index.html`, "hello from web-0");

    env.host.setCommandLatency("umount", slowUmountMs);
    const commandsBeforeDelete = env.commands.length;
    await env.deletePod(oldPod);
    // Step until the old pod's own unmount is done and UnmountDevice has started.
    const startedAt = env.clock.now();
    while (env.manager.asw.getAllMountedVolumes().length > 0) await env.clock.advanceBy(100);
    await env.clock.advanceBy(200);
    assert.equal(env.manager.executor.isOperationPending(volumeName, "", ""), true, "UnmountDevice is in flight");
    assert.equal(env.manager.asw.getAttachedVolume(volumeName)?.deviceMountState, "DeviceGloballyMounted");

    const newPod = await env.addPod(statefulPod());
    assert.notEqual(newPod.metadata?.uid, oldPod.metadata?.uid);
    const outcome = await syncPodAndWait(env, newPod, 30_000);
    assert.equal(outcome.error, undefined);
    assert.ok(env.clock.now() - startedAt >= 2 * slowUmountMs, "the new pod waited for both unmounts");

    const after = env.commands.slice(commandsBeforeDelete).map(commandLine);
    const unmountDevice = after.indexOf(`umount ${globalMount}`);
    const mountDevice = after.findIndex((line) => line.includes("mount -t ext4") && line.endsWith(` ${globalMount}`));
    assert.ok(unmountDevice >= 0, "UnmountDevice ran");
    assert.ok(mountDevice > unmountDevice, `MountDevice ran again after UnmountDevice: ${after.join(" | ")}`);
    assert.deepEqual(await mountPointsUnder(env, "/var/lib/kubelet"), [globalMount, podDir(newPod)].sort());
    assert.equal(await readText(env, `${podDir(newPod)}/index.html`), "hello from web-0", "no mount or byte lost");
    assert.equal(env.manager.asw.getAttachedVolume(volumeName)?.deviceMountState, "DeviceGloballyMounted");
    assert.deepEqual(env.manager.getVolumesInUse(), [volumeName], "never dropped from volumesInUse meanwhile");
  });
});
