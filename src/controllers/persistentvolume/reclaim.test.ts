import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  node,
  type PvCluster,
  persistentVolume,
  persistentVolumeClaim,
  startPvCluster,
  storageClass,
} from "./testing/pv-cluster.ts";

/** A cluster with protection, a Delete sim-disk class and a claim bound to a provisioned volume. */
async function provisionedClaim(): Promise<{ cluster: PvCluster; pvName: string }> {
  const cluster = await startPvCluster({ protection: true });
  const { client } = cluster.api;
  await client.storageClasses.create(storageClass("fast", { reclaimPolicy: "Delete" }));
  await client.nodes.create(node("node-a", "zone-b"));
  await cluster.run();
  const claim = await client.persistentVolumeClaims.create(
    persistentVolumeClaim("default", "data", { className: "fast" }),
  );
  await cluster.run();
  return { cluster, pvName: `pvc-${claim.metadata?.uid}` };
}

describe("reclaiming a released volume", () => {
  it("deletes a Delete volume and its disk once the claim is deleted", async () => {
    const { cluster, pvName } = await provisionedClaim();
    assert.deepEqual((await cluster.volume(pvName)).metadata?.finalizers, [
      "kubernetes.io/pv-controller",
      "kubernetes.io/pv-protection",
    ]);
    await cluster.api.client.persistentVolumeClaims.delete("default", "data");
    await cluster.run();

    assert.equal(await cluster.claimExists("default", "data"), false);
    assert.equal(await cluster.volumeExists(pvName), false);
    assert.equal(cluster.disks.has(pvName), false);
    await cluster.stop();
  });

  it("deletes the disk even when the PV object was deleted first", async () => {
    const { cluster, pvName } = await provisionedClaim();
    await cluster.api.client.persistentVolumes.delete("", pvName);
    await cluster.run(30_000);
    const terminating = await cluster.volume(pvName);
    assert.notEqual(terminating.metadata?.deletionTimestamp, undefined);
    assert.equal(terminating.status?.phase, "Bound", "a bound volume stays while its claim exists");

    await cluster.api.client.persistentVolumeClaims.delete("default", "data");
    await cluster.run();
    assert.equal(await cluster.volumeExists(pvName), false);
    assert.equal(cluster.disks.has(pvName), false);
    await cluster.stop();
  });

  it("waits quietly while the disk is still attached, then deletes it after detach", async () => {
    const { cluster, pvName } = await provisionedClaim();
    cluster.disks.attach(pvName, "node-a");
    await cluster.api.client.persistentVolumeClaims.delete("default", "data");
    await cluster.run();

    const volume = await cluster.volume(pvName);
    assert.equal(volume.status?.phase, "Released", "not Failed: the deleter only needs more time");
    assert.deepEqual(await cluster.events("PersistentVolume", pvName), [
      {
        type: "Normal",
        reason: "VolumeDelete",
        message: `disk ${pvName} is still attached to node-a; detach it before deleting`,
        count: 1,
      },
    ]);

    cluster.disks.attach(pvName, undefined);
    await cluster.run(15_000);
    assert.equal(await cluster.volumeExists(pvName), false);
    assert.equal(cluster.disks.has(pvName), false);
    await cluster.stop();
  });

  it("marks a Delete volume Failed when nothing can delete it", async () => {
    const cluster = await startPvCluster();
    const { client } = cluster.api;
    await client.persistentVolumes.create(persistentVolume("pv-nfs", { reclaimPolicy: "Delete" }));
    await cluster.run();
    await client.persistentVolumeClaims.create(persistentVolumeClaim("default", "data"));
    await cluster.run();
    await client.persistentVolumeClaims.delete("default", "data");
    await cluster.run();

    const message = 'error getting deleter volume plugin for volume "pv-nfs": no deletable volume plugin matched';
    const volume = await cluster.volume("pv-nfs");
    assert.equal(volume.status?.phase, "Failed");
    assert.equal(volume.status?.message, message);
    assert.deepEqual(await cluster.events("PersistentVolume", "pv-nfs"), [
      { type: "Warning", reason: "VolumeFailedDelete", message, count: 1 },
    ]);
    await cluster.run(60_000);
    assert.equal((await cluster.events("PersistentVolume", "pv-nfs")).length, 1, "retried quietly, event once");
    await cluster.stop();
  });

  it("leaves a volume of an external provisioner to that provisioner", async () => {
    const cluster = await startPvCluster();
    const { client } = cluster.api;
    await client.persistentVolumes.create(
      persistentVolume("pv-csi", {
        reclaimPolicy: "Delete",
        annotations: { "pv.kubernetes.io/provisioned-by": "csi.example.com" },
      }),
    );
    await cluster.run();
    await client.persistentVolumeClaims.create(persistentVolumeClaim("default", "data"));
    await cluster.run();
    await client.persistentVolumeClaims.delete("default", "data");
    await cluster.run(30_000);
    assert.equal((await cluster.volume("pv-csi")).status?.phase, "Released");
    assert.deepEqual(await cluster.events("PersistentVolume", "pv-csi"), []);
    await cluster.stop();
  });

  it("marks a volume with an unknown reclaim policy Failed", async () => {
    const cluster = await startPvCluster({ validate: () => [] });
    const { client } = cluster.api;
    await client.persistentVolumes.create(persistentVolume("pv-odd", { reclaimPolicy: "Shred" }));
    await cluster.run();
    await client.persistentVolumeClaims.create(persistentVolumeClaim("default", "data"));
    await cluster.run();
    await client.persistentVolumeClaims.delete("default", "data");
    await cluster.run();

    const volume = await cluster.volume("pv-odd");
    assert.equal(volume.status?.phase, "Failed");
    assert.deepEqual(await cluster.events("PersistentVolume", "pv-odd"), [
      {
        type: "Warning",
        reason: "VolumeUnknownReclaimPolicy",
        message: "Volume has unrecognized PersistentVolumeReclaimPolicy",
        count: 1,
      },
    ]);
    await cluster.stop();
  });
});
