import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { testPod } from "../../api/client/testing/test-api.ts";
import type { PersistentVolume } from "../../api/objects.ts";
import type { ProvisionedVolume, Provisioner } from "./provisioner.ts";
import {
  nfsServerAddress,
  type PvCluster,
  persistentVolume,
  persistentVolumeClaim,
  setPodPhase,
  startPvCluster,
} from "./testing/pv-cluster.ts";

/** The NFS server's exports and their files: what a recycler would `rm -rf`. */
class ScratchNfs implements Provisioner {
  readonly name = "example.com/scratch-nfs";
  readonly supportsMountOptions = true;
  readonly files = new Map<string, string[]>();

  handles(volume: PersistentVolume): boolean {
    return volume.spec?.nfs?.server === nfsServerAddress;
  }

  provision(): Promise<ProvisionedVolume> {
    return Promise.reject(new Error("this NFS server only serves existing exports"));
  }

  async delete(): Promise<void> {
    throw new Error("exports are not deleted, only recycled");
  }

  async recycle(volume: PersistentVolume): Promise<void> {
    this.files.set(volume.spec?.nfs?.path ?? "", []);
  }
}

async function releasedRecycleVolume(nfs: ScratchNfs, options: { podUsesClaim: boolean; hostPath?: string }) {
  const cluster = await startPvCluster({ provisioners: [nfs] });
  const { client } = cluster.api;
  nfs.files.set("/exports/pv-1", ["report.csv"]);
  await client.persistentVolumes.create(
    persistentVolume("pv-1", { reclaimPolicy: "Recycle", ...(options.hostPath ? { hostPath: options.hostPath } : {}) }),
  );
  await cluster.run();
  await client.persistentVolumeClaims.create(persistentVolumeClaim("default", "data"));
  const pod = options.podUsesClaim
    ? await client.pods.create(testPod("default", "app", undefined, ["data"]))
    : undefined;
  await cluster.run();
  await client.persistentVolumeClaims.delete("default", "data");
  await cluster.run();
  return { cluster, pod };
}

async function volumeOf(cluster: PvCluster) {
  return cluster.volume("pv-1");
}

describe("recycling a released volume", () => {
  it("refuses while a pod still uses the claim, and recycles once the pod has finished", async () => {
    const nfs = new ScratchNfs();
    const { cluster, pod } = await releasedRecycleVolume(nfs, { podUsesClaim: true });
    assert.equal((await volumeOf(cluster)).status?.phase, "Released");
    // Every sync of the released volume tries again and repeats the event (its count grows).
    const refusals = (await cluster.events("PersistentVolume", "pv-1")).map(({ type, reason, message }) => ({
      type,
      reason,
      message,
    }));
    assert.deepEqual(refusals, [
      { type: "Normal", reason: "VolumeFailedRecycle", message: "Volume is used by pods: default/app" },
    ]);
    assert.deepEqual(nfs.files.get("/exports/pv-1"), ["report.csv"], "data kept while in use");

    if (pod !== undefined) await setPodPhase(cluster.api.client, pod, "Succeeded");
    await cluster.run(15_000);
    const volume = await volumeOf(cluster);
    assert.equal(volume.status?.phase, "Available");
    assert.equal(volume.spec?.claimRef, undefined);
    assert.deepEqual(nfs.files.get("/exports/pv-1"), []);
    const events = await cluster.events("PersistentVolume", "pv-1");
    assert.deepEqual(events.at(-1), { type: "Normal", reason: "VolumeRecycled", message: "Volume recycled", count: 1 });
    await cluster.stop();
  });

  it("marks the volume Failed when nothing can recycle it", async () => {
    const { cluster } = await releasedRecycleVolume(new ScratchNfs(), { podUsesClaim: false, hostPath: "/srv/data" });
    const volume = await volumeOf(cluster);
    assert.equal(volume.status?.phase, "Failed");
    assert.equal(volume.status?.message, "No recycler plugin found for the volume!");
    assert.deepEqual(await cluster.events("PersistentVolume", "pv-1"), [
      { type: "Warning", reason: "VolumeFailedRecycle", message: "No recycler plugin found for the volume!", count: 1 },
    ]);
    await cluster.stop();
  });
});
