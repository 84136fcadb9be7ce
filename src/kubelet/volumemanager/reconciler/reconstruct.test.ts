import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { commandLine } from "../../../volume/testing/recording-host.ts";
import {
  boundSimDiskClaim,
  podUsing,
  simDiskVolumeName,
  testNamespace,
  type VolumeManagerEnv,
  volumeManagerEnv,
} from "../testing/volume-manager-env.ts";
import { finishPodSync, mountPointsUnder, readText, startPodSync, syncPodAndWait } from "../testing/wait.ts";

const podsDir = "/var/lib/kubelet/pods";

function uidOf(pod: Pod): string {
  return pod.metadata?.uid ?? "";
}

/** Four running pods: a controller-attached disk, NFS, a secret with an emptyDir, and NFS again (to be deleted). */
async function fourRunningPods(env: VolumeManagerEnv): Promise<{ running: Pod[]; deleted: Pod }> {
  await boundSimDiskClaim(env, "data", "disk-1");
  env.world.addNfsServer("10.0.9.1").addExport("/exports");
  await env.client.secrets.create({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { namespace: testNamespace, name: "token" },
    data: { token: Buffer.from("t0k3n").toString("base64") },
  });
  const nfs = { name: "shared", nfs: { server: "10.0.9.1", path: "/exports" } };
  const db = await env.addPod(
    podUsing("db", [{ volume: { name: "data", persistentVolumeClaim: { claimName: "data" } } }]),
  );
  const web = await env.addPod(podUsing("web", [{ volume: nfs }]));
  const api = await env.addPod(
    podUsing("api", [
      { volume: { name: "creds", secret: { secretName: "token" } } },
      { volume: { name: "tmp", emptyDir: {} } },
    ]),
  );
  const batch = await env.addPod(podUsing("batch", [{ volume: nfs }, { volume: { name: "tmp", emptyDir: {} } }]));
  const dbSync = startPodSync(env, db);
  await env.clock.advanceBy(200);
  await env.reportVolumesInUse();
  await env.attachDisk("disk-1");
  assert.equal((await finishPodSync(env, dbSync)).error, undefined);
  for (const pod of [web, api, batch]) assert.equal((await syncPodAndWait(env, pod)).error, undefined);
  await env.reportVolumesInUse();
  return { running: [db, web, api], deleted: batch };
}

describe("reconstruction after a kubelet restart", () => {
  it("keeps the running pods' mounts, re-verifies them, and cleans up a pod deleted while the kubelet was down", async () => {
    const env = await volumeManagerEnv();
    const { running, deleted } = await fourRunningPods(env);
    const runningMounts = (
      await Promise.all(running.map((pod) => mountPointsUnder(env, `${podsDir}/${uidOf(pod)}`)))
    ).flat();
    assert.equal(runningMounts.length, 3, "disk bind mount, NFS, secret tmpfs");
    const deletedDir = `${podsDir}/${uidOf(deleted)}`;
    assert.equal((await mountPointsUnder(env, deletedDir)).length, 1);

    // The kubelet stops; the batch pod is deleted meanwhile.
    await env.manager.stop();
    env.pods.remove(uidOf(deleted));
    const commandsBeforeRestart = env.commands.length;
    const manager = await env.restartKubelet();

    // Right after the restart the mounts are known again, but uncertain.
    await env.clock.advanceBy(0);
    const dbMount = manager.asw.getAllMountedVolumes().find((volume) => volume.podName === uidOf(running[0] as Pod));
    assert.equal(dbMount?.volumeMountState, "VolumeMountUncertain");
    assert.equal(manager.asw.getAttachedVolume(simDiskVolumeName("disk-1"))?.deviceMountState, "DeviceMountUncertain");

    await env.clock.advanceBy(2_000);
    await env.reportVolumesInUse();
    for (const pod of running) assert.equal((await syncPodAndWait(env, pod)).error, undefined);
    assert.equal(manager.statesHaveBeenSynced(), true);
    assert.equal(manager.asw.getAttachedVolume(simDiskVolumeName("disk-1"))?.deviceMountState, "DeviceGloballyMounted");
    assert.equal(
      manager.asw.getAttachedVolume(simDiskVolumeName("disk-1"))?.devicePath,
      "/dev/disk/by-id/virtio-disk-1",
    );

    const unmounts = env.commands.slice(commandsBeforeRestart).filter((command) => command.command === "umount");
    const runningUnmounts = unmounts.filter((command) =>
      running.some((pod) => commandLine(command).includes(uidOf(pod))),
    );
    assert.deepEqual(runningUnmounts, [], "no unmount was ever issued for a running pod");
    const stillMounted = (
      await Promise.all(running.map((pod) => mountPointsUnder(env, `${podsDir}/${uidOf(pod)}`)))
    ).flat();
    assert.deepEqual(stillMounted, runningMounts);
    assert.equal(
      await readText(env, `${podsDir}/${uidOf(running[2] as Pod)}/volumes/kubernetes.io~secret/creds/token`),
      "t0k3n",
    );

    assert.deepEqual(await mountPointsUnder(env, deletedDir), [], "the deleted pod's NFS mount is gone");
    assert.equal(await manager.podVolumesExist(uidOf(deleted)), false);
    assert.deepEqual(await env.host.readdir(`${deletedDir}/volumes/kubernetes.io~nfs`), []);
    assert.deepEqual(await manager.cleanupOrphanedPodDirs(new Set(running.map(uidOf))), []);
    await assert.rejects(env.host.stat(deletedDir), /no such file or directory/);
  });

  it("unmounts nothing before the desired state is populated, even for volumes no pod seems to want", async () => {
    const env = await volumeManagerEnv();
    const { running } = await fourRunningPods(env);
    await env.manager.stop();
    // The restarted kubelet has not heard from the API server yet: its pod manager is empty.
    let sourcesReady = false;
    const known = running.map((pod) => env.pods.getPodByUID(uidOf(pod)) as Pod);
    for (const pod of env.pods.getPods()) env.pods.forget(uidOf(pod));
    env.pods.podsSynced = false;
    env.setSourcesReady(() => sourcesReady);
    const commandsBeforeRestart = env.commands.length;
    await env.restartKubelet();
    await env.clock.advanceBy(30_000);
    assert.deepEqual(
      env.commands.slice(commandsBeforeRestart).filter((command) => command.command === "umount"),
      [],
    );
    for (const pod of known) env.pods.add(pod);
    env.pods.podsSynced = true;
    sourcesReady = true;
    await env.clock.advanceBy(2_000);
    for (const pod of running) assert.equal((await syncPodAndWait(env, pod)).error, undefined);
    const unmountedRunning = env.commands
      .slice(commandsBeforeRestart)
      .filter(
        (command) => command.command === "umount" && running.some((pod) => commandLine(command).includes(uidOf(pod))),
      );
    assert.deepEqual(unmountedRunning, []);
  });
});

describe("reconstruction of raw block volumes", () => {
  it("finds a running pod's block volume under volumeDevices/ and keeps it mapped", async () => {
    const env = await volumeManagerEnv();
    await boundSimDiskClaim(env, "raw", "disk-2", "Block");
    const pod = await env.addPod(
      podUsing("db", [{ volume: { name: "raw", persistentVolumeClaim: { claimName: "raw" } }, asDevice: true }]),
    );
    const sync = startPodSync(env, pod);
    await env.clock.advanceBy(200);
    await env.reportVolumesInUse();
    await env.attachDisk("disk-2");
    assert.equal((await finishPodSync(env, sync)).error, undefined);
    const link = `${podsDir}/${uidOf(pod)}/volumeDevices/kvol.io~sim-disk/pv-disk-2`;
    const target = await env.host.readlink(link);

    await env.manager.stop();
    const commandsBeforeRestart = env.commands.length;
    const manager = await env.restartKubelet();
    await env.clock.advanceBy(0);
    const found = manager.asw.getAllMountedVolumes();
    assert.deepEqual(
      found.map((volume) => [volume.volumeName, volume.volumeMountState]),
      [[simDiskVolumeName("disk-2"), "VolumeMountUncertain"]],
    );
    await env.clock.advanceBy(2_000);
    await env.reportVolumesInUse();
    assert.equal((await syncPodAndWait(env, pod)).error, undefined);
    assert.equal(await env.host.readlink(link), target);
    assert.deepEqual(
      env.commands.slice(commandsBeforeRestart).filter((command) => command.command === "umount"),
      [],
    );
  });
});
