/**
 * The snapshot controller and the csi-snapshotter sidecar in a simulated cluster with
 * disk.csi.kvol.io: the finalizers they set and remove, Retain versus Delete, and a pre-provisioned
 * snapshot bound to an existing content.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diskDriverName } from "../../csi/drivers/common/constants.ts";
import { clusterPerTest } from "../../sim/testing/clusters.ts";
import { claimYaml, storageClassYaml } from "../../sim/testing/manifests.ts";

const startCluster = clusterPerTest();
const settleMs = 30_000;

function classYaml(deletionPolicy: "Delete" | "Retain"): string {
  return `
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshotClass
metadata:
  name: disk-snapclass
  annotations: { snapshot.storage.kubernetes.io/is-default-class: "true" }
driver: ${diskDriverName}
deletionPolicy: ${deletionPolicy}
`;
}

const snapshotYaml = `
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshot
metadata: { name: data-snap }
spec:
  source: { persistentVolumeClaimName: data }
`;

async function clusterWithSnapshot(deletionPolicy: "Delete" | "Retain") {
  const cluster = await startCluster({ seed: 5, csiDrivers: [{ name: diskDriverName }] });
  await cluster.addNode("node-a");
  await cluster.apply(
    [
      storageClassYaml({ provisioner: diskDriverName, bindingMode: "Immediate" }),
      claimYaml("data"),
      classYaml(deletionPolicy),
    ].join("---\n"),
  );
  await cluster.runFor(settleMs);
  await cluster.apply(snapshotYaml);
  await cluster.runFor(settleMs);
  return cluster;
}

describe("snapshot controller and csi-snapshotter", () => {
  it("binds a dynamic snapshot with its finalizers and releases the source claim once it is ready", async () => {
    const cluster = await clusterWithSnapshot("Delete");
    const snapshot = await cluster.client.resource("VolumeSnapshot").get("default", "data-snap");
    assert.equal(snapshot.status?.readyToUse, true);
    assert.equal(snapshot.status?.restoreSize, "1Gi");
    assert.equal(snapshot.spec.volumeSnapshotClassName, "disk-snapclass", "the default class is written in");
    assert.deepEqual(snapshot.metadata?.finalizers, ["snapshot.storage.kubernetes.io/volumesnapshot-bound-protection"]);
    const contentName = `snapcontent-${snapshot.metadata?.uid}`;
    assert.equal(snapshot.status?.boundVolumeSnapshotContentName, contentName);
    const content = await cluster.client.resource("VolumeSnapshotContent").get("", contentName);
    assert.deepEqual(content.metadata?.finalizers, [
      "snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection",
    ]);
    assert.equal(content.status?.restoreSize, 1024 ** 3);
    const claim = await cluster.client.persistentVolumeClaims.get("default", "data");
    assert.ok(!(claim.metadata?.finalizers ?? []).includes("snapshot.storage.kubernetes.io/pvc-as-source-protection"));
    assert.equal(cluster.world.disks.listSnapshots().length, 1);
  });

  it("deletes the content and the physical snapshot with Delete, keeps both with Retain", async () => {
    const deleting = await clusterWithSnapshot("Delete");
    await deleting.client.resource("VolumeSnapshot").delete("default", "data-snap");
    await deleting.runFor(settleMs);
    assert.deepEqual((await deleting.client.resource("VolumeSnapshotContent").list()).items, []);
    assert.deepEqual(deleting.world.disks.listSnapshots(), []);

    const retaining = await clusterWithSnapshot("Retain");
    await retaining.client.resource("VolumeSnapshot").delete("default", "data-snap");
    await retaining.runFor(settleMs);
    assert.deepEqual((await retaining.client.resource("VolumeSnapshot").list()).items, []);
    assert.equal((await retaining.client.resource("VolumeSnapshotContent").list()).items.length, 1);
    assert.equal(retaining.world.disks.listSnapshots().length, 1);
  });

  it("binds a pre-provisioned snapshot to its content and reads its state with ListSnapshots", async () => {
    const cluster = await clusterWithSnapshot("Retain");
    const [physical] = cluster.world.disks.listSnapshots();
    assert.ok(physical !== undefined);
    await cluster.apply(`
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshotContent
metadata: { name: imported }
spec:
  deletionPolicy: Retain
  driver: ${diskDriverName}
  source: { snapshotHandle: ${physical.id} }
  volumeSnapshotRef: { name: imported-snap, namespace: default }
---
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshot
metadata: { name: imported-snap }
spec:
  source: { volumeSnapshotContentName: imported }
`);
    await cluster.runFor(settleMs);
    const snapshot = await cluster.client.resource("VolumeSnapshot").get("default", "imported-snap");
    assert.equal(snapshot.status?.boundVolumeSnapshotContentName, "imported");
    assert.equal(snapshot.status?.readyToUse, true);
    assert.equal(snapshot.status?.restoreSize, "1Gi");
    const content = await cluster.client.resource("VolumeSnapshotContent").get("", "imported");
    assert.equal(content.spec.volumeSnapshotRef.uid, snapshot.metadata?.uid);
  });
});
