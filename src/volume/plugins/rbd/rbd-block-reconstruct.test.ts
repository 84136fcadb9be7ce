import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import {
  podUsing,
  testNamespace,
  testNodeName,
  type VolumeManagerEnv,
  volumeManagerEnv,
} from "../../../kubelet/volumemanager/testing/volume-manager-env.ts";
import { finishPodSync, startPodSync, syncPodAndWait } from "../../../kubelet/volumemanager/testing/wait.ts";

const rbdVolumeName = "kubernetes.io/rbd/sock_shop:user-pv";

/** The image, its Secret, and a Block PV bound to claim "raw". */
async function boundRbdBlockClaim(env: VolumeManagerEnv): Promise<void> {
  env.world.rbd.createImage("sock_shop", "user-pv", 64 << 20);
  await env.client.secrets.create({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { namespace: testNamespace, name: "ceph-secret" },
    data: { key: Buffer.from("AQBRadmin==").toString("base64") },
  });
  const pvc = await env.client.persistentVolumeClaims.create({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { namespace: testNamespace, name: "raw" },
    spec: {
      accessModes: ["ReadWriteOnce"],
      volumeName: "user-pv",
      volumeMode: "Block",
      resources: { requests: { storage: "1Gi" } },
    },
  });
  await env.client.persistentVolumes.create({
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name: "user-pv" },
    spec: {
      accessModes: ["ReadWriteOnce"],
      capacity: { storage: "1Gi" },
      volumeMode: "Block",
      claimRef: { namespace: testNamespace, name: "raw", uid: pvc.metadata?.uid ?? "" },
      rbd: {
        monitors: [...env.world.rbd.monitors],
        pool: "sock_shop",
        image: "user-pv",
        user: "admin",
        secretRef: { name: "ceph-secret", namespace: testNamespace },
      },
    },
  });
  await env.client.persistentVolumeClaims.mutate(
    testNamespace,
    "raw",
    (draft) => {
      draft.status = { phase: "Bound" };
    },
    { subresource: "status" },
  );
}

/** The attach/detach controller's part: rbd attaches on the node, so the controller only records it. */
async function markAttached(env: VolumeManagerEnv): Promise<void> {
  await env.client.nodes.mutate(
    "",
    testNodeName,
    (draft) => {
      draft.status = { ...draft.status, volumesAttached: [{ name: rbdVolumeName, devicePath: "" }] };
    },
    { subresource: "status" },
  );
}

async function runningRawPod(env: VolumeManagerEnv): Promise<Pod> {
  await boundRbdBlockClaim(env);
  const pod = await env.addPod(
    podUsing("user-db", [{ volume: { name: "raw", persistentVolumeClaim: { claimName: "raw" } }, asDevice: true }]),
  );
  const sync = startPodSync(env, pod);
  await env.clock.advanceBy(200);
  await env.reportVolumesInUse();
  await markAttached(env);
  await env.reportVolumesInUse();
  assert.equal((await finishPodSync(env, sync, 120_000)).error, undefined);
  return pod;
}

describe("rbd raw block volume after a kubelet restart", () => {
  it("finds pool and image from the pod's mapped device and leaves the running pod's device alone", async () => {
    const env = await volumeManagerEnv();
    const pod = await runningRawPod(env);
    const link = `/var/lib/kubelet/pods/${pod.metadata?.uid}/volumeDevices/kubernetes.io~rbd/user-pv`;
    const target = await env.host.readlink(link);

    const commandsBeforeRestart = env.commands.length;
    const logsBeforeRestart = env.logs.records.length;
    const manager = await env.restartKubelet();
    await env.clock.advanceBy(0);
    assert.deepEqual(
      manager.asw.getAllMountedVolumes().map((volume) => [volume.volumeName, volume.volumeMountState]),
      [[rbdVolumeName, "VolumeMountUncertain"]],
    );
    await env.clock.advanceBy(2_000);
    await env.reportVolumesInUse();
    assert.equal((await syncPodAndWait(env, pod)).error, undefined);
    await env.clock.advanceBy(30_000);

    assert.equal(await env.host.readlink(link), target);
    const afterRestart = env.commands.slice(commandsBeforeRestart);
    assert.deepEqual(
      afterRestart.filter((command) => command.command === "umount").map((command) => command.args),
      [],
    );
    assert.equal(
      afterRestart.some((command) => command.args[0] === "unmap"),
      false,
      "the image stays mapped",
    );
    const teardowns = env.logs.records
      .slice(logsBeforeRestart)
      .filter((record) => /^operationExecutor\.(UnmountVolume|UnmountDevice) started/.test(record.message));
    assert.deepEqual(teardowns, [], "neither the pod's device link nor the image's global map path is torn down");
    assert.equal(env.world.rbd.image("sock_shop", "user-pv")?.watchers.length, 1);
  });
});
