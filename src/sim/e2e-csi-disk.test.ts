/**
 * End to end through CSI, with real kubelets: a claim of disk.csi.kvol.io provisioned by the
 * external-provisioner, attached through a VolumeAttachment by the external-attacher, staged and
 * published by the driver's node plugin — then the pod moves to another node and finds its bytes,
 * and a second pod on another node meets the Multi-Attach refusal while the disk is on the first.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "../api/objects.ts";
import type { Cluster } from "../cmd/cluster.ts";
import { diskDriverName } from "../csi/drivers/common/constants.ts";
import { clusterPerTest } from "./testing/clusters.ts";
import { isRunning, podEventMessages, podVolumePath, readText } from "./testing/e2e.ts";
import { claimYaml, storageClassYaml } from "./testing/manifests.ts";

const minuteMs = 60_000;
const csiPluginName = "kubernetes.io/csi";

function podOn(name: string, nodeName: string): string {
  return `
apiVersion: v1
kind: Pod
metadata: { name: ${name} }
spec:
  nodeSelector: { kubernetes.io/hostname: ${nodeName} }
  containers:
    - name: app
      image: busybox:1.36
      volumeMounts: [{ name: data, mountPath: /data }]
  volumes:
    - name: data
      persistentVolumeClaim: { claimName: data }
`;
}

async function runUntilRunning(cluster: Cluster, name: string): Promise<Pod> {
  await cluster.runUntil(async () => isRunning(await cluster.tryGet("Pod", "default", name)), {
    timeoutMs: 3 * minuteMs,
    description: `pod ${name} Running`,
  });
  return cluster.get("Pod", "default", name);
}

describe("end to end: disk.csi.kvol.io volumes move between nodes", () => {
  const startCluster = clusterPerTest();

  async function twoNodeCluster(): Promise<Cluster> {
    const cluster = await startCluster({ seed: 21, csiDrivers: [{ name: diskDriverName }] });
    await cluster.addNode("node-a");
    await cluster.addNode("node-b");
    await cluster.apply(
      [
        storageClassYaml({ name: "disk", provisioner: diskDriverName }),
        claimYaml("data", { storageClassName: "disk" }),
      ].join("---\n"),
    );
    return cluster;
  }

  it("a pod on node-a writes, is deleted, and a pod on node-b reads the same bytes from the same disk", async () => {
    const cluster = await twoNodeCluster();
    assert.equal((await cluster.get("CSIDriver", "", diskDriverName)).spec?.attachRequired, true);
    await cluster.apply(podOn("writer", "node-a"));
    const writer = await runUntilRunning(cluster, "writer");
    const pv = (await cluster.get("PersistentVolumeClaim", "default", "data")).spec?.volumeName ?? "";
    const volume = await cluster.get("PersistentVolume", "", pv);
    assert.equal(volume.spec?.csi?.driver, diskDriverName);
    const handle = volume.spec?.csi?.volumeHandle ?? "";
    const attachments = await cluster.list("VolumeAttachment");
    assert.deepEqual(
      attachments.map((attachment) => [
        attachment.spec.attacher,
        attachment.spec.nodeName,
        attachment.status?.attached,
      ]),
      [[diskDriverName, "node-a", true]],
    );
    assert.deepEqual(attachments[0]?.status?.attachmentMetadata, { devicePath: `/dev/disk/by-id/virtio-${handle}` });
    const csiNode = await cluster.get("CSINode", "", "node-b");
    assert.deepEqual(
      csiNode.spec?.drivers.map((driver) => [driver.name, driver.nodeID, driver.allocatable?.count]),
      [[diskDriverName, "node-b", 16]],
    );

    const hostA = cluster.world.node("node-a");
    const pathOnA = podVolumePath(writer, csiPluginName, pv);
    assert.equal((await hostA.mountInfo()).find((mount) => mount.mountPoint === `${pathOnA}/mount`)?.fsType, "ext4");
    await hostA.writeFile(`${pathOnA}/mount/greeting.txt`, "hello from node-a");

    await cluster.delete("Pod", "default", "writer");
    await cluster.runUntil(async () => (await cluster.list("VolumeAttachment")).length === 0, {
      timeoutMs: 3 * minuteMs,
      description: "the disk detached from node-a",
    });
    assert.deepEqual(cluster.world.disksAttachedTo("node-a"), []);

    await cluster.apply(podOn("reader", "node-b"));
    const reader = await runUntilRunning(cluster, "reader");
    const pathOnB = podVolumePath(reader, csiPluginName, pv);
    assert.equal(await readText(cluster.world.node("node-b"), `${pathOnB}/mount/greeting.txt`), "hello from node-a");
    assert.deepEqual(
      cluster.world.disksAttachedTo("node-b").map(({ disk }) => disk.id),
      [handle],
    );
  });

  it("while the RWO disk is attached to node-a, a pod on node-b gets the Multi-Attach error", async () => {
    const cluster = await twoNodeCluster();
    await cluster.apply(podOn("first", "node-a"));
    const first = await runUntilRunning(cluster, "first");
    await cluster.apply(podOn("second", "node-b"));
    await cluster.runFor(minuteMs);
    const second = await cluster.get("Pod", "default", "second");
    assert.equal(second.status?.phase, "Pending");
    const pv = (await cluster.get("PersistentVolumeClaim", "default", "data")).spec?.volumeName ?? "";
    assert.deepEqual(await podEventMessages(cluster, second, "FailedAttachVolume"), [
      `Multi-Attach error for volume "${pv}" Volume is already used by pod(s) ${first.metadata?.name}`,
    ]);
    assert.deepEqual(
      (await cluster.list("VolumeAttachment")).map((attachment) => attachment.spec.nodeName),
      ["node-a"],
    );
  });
});
