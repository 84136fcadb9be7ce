import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolumeClaim } from "../../api/objects.ts";
import {
  type PvCluster,
  persistentVolume,
  persistentVolumeClaim,
  startPvCluster,
  type VolumeOptions,
} from "./testing/pv-cluster.ts";

async function createVolume(cluster: PvCluster, name: string, options: VolumeOptions = {}) {
  await cluster.api.client.persistentVolumes.create(persistentVolume(name, options));
  await cluster.run();
  return cluster.volume(name);
}

/** A claim bound to `pv-b`, and `pv-a` pointing at it as if it had been bound to it before. */
async function claimBoundElsewhere(cluster: PvCluster, volumeA: VolumeOptions): Promise<PersistentVolumeClaim> {
  await createVolume(cluster, "pv-b");
  const claim = await cluster.api.client.persistentVolumeClaims.create(
    persistentVolumeClaim("default", "data", { volumeName: "pv-b" }),
  );
  await cluster.run();
  const claimRef = { namespace: "default", name: "data", uid: claim.metadata?.uid ?? "" };
  await cluster.api.client.persistentVolumes.create(persistentVolume("pv-a", { ...volumeA, claimRef }));
  await cluster.run();
  return claim;
}

describe("syncing a volume", () => {
  it("makes an unclaimed volume and a volume reserved by name Available", async () => {
    const cluster = await startPvCluster();
    assert.equal((await createVolume(cluster, "pv-free")).status?.phase, "Available");
    const reserved = await createVolume(cluster, "pv-reserved", { claimRef: { namespace: "default", name: "later" } });
    assert.equal(reserved.status?.phase, "Available");
    await cluster.stop();
  });

  it("releases a Retain volume whose claim is deleted, and keeps it with its claimRef", async () => {
    const cluster = await startPvCluster();
    await createVolume(cluster, "pv-1", { reclaimPolicy: "Retain" });
    await cluster.api.client.persistentVolumeClaims.create(persistentVolumeClaim("default", "data"));
    await cluster.run();
    await cluster.api.client.persistentVolumeClaims.delete("default", "data");
    await cluster.run(60_000);

    const volume = await cluster.volume("pv-1");
    assert.equal(volume.status?.phase, "Released");
    assert.equal(volume.spec?.claimRef?.name, "data");
    assert.deepEqual(await cluster.events("PersistentVolume", "pv-1"), []);
    await cluster.stop();
  });

  it("unbinds a volume the controller reserved for a claim that was bound to another volume", async () => {
    const cluster = await startPvCluster();
    await claimBoundElsewhere(cluster, { annotations: { "pv.kubernetes.io/bound-by-controller": "yes" } });
    const volume = await cluster.volume("pv-a");
    assert.equal(volume.status?.phase, "Available");
    assert.equal(volume.spec?.claimRef, undefined);
    assert.equal(volume.metadata?.annotations, undefined);
    await cluster.stop();
  });

  it("keeps a user's reservation but drops its UID when the claim was bound to another volume", async () => {
    const cluster = await startPvCluster();
    await claimBoundElsewhere(cluster, {});
    const volume = await cluster.volume("pv-a");
    assert.equal(volume.status?.phase, "Available");
    assert.deepEqual(
      { name: volume.spec?.claimRef?.name, uid: volume.spec?.claimRef?.uid },
      { name: "data", uid: undefined },
    );
    await cluster.stop();
  });

  it("deletes a volume provisioned for a claim that was bound to another volume", async () => {
    const cluster = await startPvCluster();
    cluster.disks.createDisk("disk-a", 2 ** 30);
    await claimBoundElsewhere(cluster, {
      reclaimPolicy: "Delete",
      annotations: { "pv.kubernetes.io/provisioned-by": "kvol.io/sim-disk" },
      flexDiskId: "disk-a",
    });
    assert.equal(await cluster.volumeExists("pv-a"), false);
    assert.equal(cluster.disks.has("disk-a"), false);
    await cluster.stop();
  });

  it("tells both sides when a claim holding the volume wants another volumeMode", async () => {
    const cluster = await startPvCluster();
    const claim = await cluster.api.client.persistentVolumeClaims.create(
      persistentVolumeClaim("default", "raw", { volumeMode: "Block", className: "other" }),
    );
    await cluster.run();
    const claimRef = { namespace: "default", name: "raw", uid: claim.metadata?.uid ?? "" };
    await createVolume(cluster, "pv-fs", { claimRef });

    assert.deepEqual(await cluster.events("PersistentVolume", "pv-fs"), [
      {
        type: "Warning",
        reason: "VolumeMismatch",
        message:
          'Cannot bind PersistentVolume to requested PersistentVolumeClaim "raw" due to incompatible volumeMode.',
        count: 1,
      },
    ]);
    const onClaim = await cluster.events("PersistentVolumeClaim", "raw");
    assert.deepEqual(onClaim.at(-1), {
      type: "Warning",
      reason: "VolumeMismatch",
      message:
        'Cannot bind PersistentVolume "pv-fs" to requested PersistentVolumeClaim due to incompatible volumeMode.',
      count: 1,
    });
    assert.equal((await cluster.claim("default", "raw")).status?.phase, "Pending");
    await cluster.stop();
  });
});
