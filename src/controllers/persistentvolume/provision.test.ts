import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { node, type PvCluster, persistentVolumeClaim, startPvCluster, storageClass } from "./testing/pv-cluster.ts";

async function clusterWithClass(options: Parameters<typeof storageClass>[1] = {}): Promise<PvCluster> {
  const cluster = await startPvCluster();
  await cluster.api.client.storageClasses.create(storageClass("fast", options));
  await cluster.api.client.nodes.create(node("node-a", "zone-b"));
  await cluster.run();
  return cluster;
}

async function createClaim(cluster: PvCluster, options: Parameters<typeof persistentVolumeClaim>[2] = {}) {
  const created = await cluster.api.client.persistentVolumeClaims.create(
    persistentVolumeClaim("default", "data", { className: "fast", ...options }),
  );
  await cluster.run();
  return { uid: created.metadata?.uid ?? "", pvName: `pvc-${created.metadata?.uid ?? ""}` };
}

async function selectNode(cluster: PvCluster, nodeName: string): Promise<void> {
  await cluster.api.client.persistentVolumeClaims.mutate("default", "data", (draft) => {
    draft.metadata = {
      ...draft.metadata,
      annotations: { ...draft.metadata?.annotations, "volume.kubernetes.io/selected-node": nodeName },
    };
  });
  await cluster.run();
}

describe("provisioning with the sim-disk provisioner", () => {
  it("creates a disk and a PV named after the claim, bound to it, for an Immediate class", async () => {
    const cluster = await clusterWithClass({ parameters: { fsType: "xfs", type: "ssd" } });
    const { pvName } = await createClaim(cluster, { request: "1500Mi" });

    const volume = await cluster.volume(pvName);
    assert.deepEqual(volume.metadata?.annotations, {
      "pv.kubernetes.io/bound-by-controller": "yes",
      "pv.kubernetes.io/provisioned-by": "kvol.io/sim-disk",
    });
    assert.deepEqual(volume.metadata?.finalizers, ["kubernetes.io/pv-controller"]);
    assert.equal(volume.spec?.persistentVolumeReclaimPolicy, "Delete");
    assert.deepEqual(volume.spec?.capacity, { storage: "2Gi" });
    assert.deepEqual(volume.spec?.flexVolume, {
      driver: "kvol.io/sim-disk",
      fsType: "xfs",
      options: { diskId: pvName },
    });
    assert.equal(volume.spec?.storageClassName, "fast");
    assert.equal(volume.spec?.nodeAffinity, undefined, "no node and no allowed topology: usable anywhere");
    assert.equal(volume.status?.phase, "Bound");
    assert.deepEqual(cluster.disks.disks.get(pvName)?.sizeBytes, 2 * 2 ** 30);
    assert.equal(cluster.disks.disks.get(pvName)?.options.diskType, "ssd");

    const claim = await cluster.claim("default", "data");
    assert.equal(claim.status?.phase, "Bound");
    assert.equal(claim.spec?.volumeName, pvName);
    assert.equal(claim.metadata?.annotations?.["volume.kubernetes.io/storage-provisioner"], "kvol.io/sim-disk");
    assert.equal(claim.metadata?.annotations?.["volume.beta.kubernetes.io/storage-provisioner"], "kvol.io/sim-disk");
    assert.deepEqual(await cluster.events("PersistentVolumeClaim", "data"), [
      {
        type: "Normal",
        reason: "ProvisioningSucceeded",
        message: `Successfully provisioned volume ${pvName} using kvol.io/sim-disk`,
        count: 1,
      },
    ]);
    await cluster.stop();
  });

  it("puts no deletion finalizer on a volume of a Retain class", async () => {
    const cluster = await clusterWithClass({ reclaimPolicy: "Retain" });
    const { pvName } = await createClaim(cluster);
    const volume = await cluster.volume(pvName);
    assert.equal(volume.spec?.persistentVolumeReclaimPolicy, "Retain");
    assert.equal(volume.metadata?.finalizers, undefined);
    await cluster.stop();
  });

  it("waits for the scheduler with WaitForFirstConsumer, then provisions in the selected node's zone", async () => {
    const cluster = await clusterWithClass({ bindingMode: "WaitForFirstConsumer" });
    const { pvName } = await createClaim(cluster);
    assert.equal((await cluster.claim("default", "data")).status?.phase, "Pending");
    assert.equal(cluster.disks.disks.size, 0);
    assert.equal((await cluster.events("PersistentVolumeClaim", "data"))[0]?.reason, "WaitForFirstConsumer");

    await selectNode(cluster, "node-a");
    const volume = await cluster.volume(pvName);
    assert.deepEqual(volume.spec?.nodeAffinity, {
      required: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "In", values: ["zone-b"] }] },
        ],
      },
    });
    assert.deepEqual(volume.metadata?.labels, { "topology.kubernetes.io/zone": "zone-b" });
    assert.equal(cluster.disks.disks.get(pvName)?.options.zone, "zone-b");
    assert.equal((await cluster.claim("default", "data")).status?.phase, "Bound");
    await cluster.stop();
  });

  it("spreads claims without a node over the class's allowed zones", async () => {
    const allowedTopologies = [
      { matchLabelExpressions: [{ key: "topology.kubernetes.io/zone", values: ["zone-a", "zone-b", "zone-c"] }] },
    ];
    const cluster = await clusterWithClass({ allowedTopologies });
    const zones: string[] = [];
    for (const ordinal of [0, 1, 2]) {
      const created = await cluster.api.client.persistentVolumeClaims.create(
        persistentVolumeClaim("default", `data-web-${ordinal}`, { className: "fast" }),
      );
      await cluster.run();
      zones.push(cluster.disks.disks.get(`pvc-${created.metadata?.uid}`)?.options.zone ?? "");
    }
    assert.deepEqual([...zones].sort(), ["zone-a", "zone-b", "zone-c"], "consecutive members take consecutive zones");
    await cluster.stop();
  });

  it("reports a failed provisioning and retries it with exponential backoff at the 15 s resyncs", async () => {
    const cluster = await clusterWithClass();
    cluster.disks.failCreates(100, "quota exceeded for disks in zone-b");
    const { uid } = await createClaim(cluster);
    const operationLog = `Operation for "provision-default/data[${uid}]" failed. No retries permitted until`;
    assert.ok(cluster.api.logs.lines().some((line) => line.includes(operationLog)));
    const expectedMessage = 'Failed to provision volume with StorageClass "fast": quota exceeded for disks in zone-b';
    assert.deepEqual(await cluster.events("PersistentVolumeClaim", "data"), [
      { type: "Warning", reason: "ProvisioningFailed", message: expectedMessage, count: 1 },
    ]);
    // Backoff after the n-th failure: 0.5, 1, 2, 4, 8, 16, 32 s; attempts happen only at resyncs.
    const attemptsBy: Array<[atMs: number, attempts: number]> = [
      [15_000, 2],
      [30_000, 3],
      [45_000, 4],
      [60_000, 5],
      [75_000, 6],
      [90_000, 6],
      [105_000, 7],
      [135_000, 7],
      [150_000, 8],
    ];
    let nowMs = 0;
    for (const [atMs, attempts] of attemptsBy) {
      await cluster.run(atMs - nowMs);
      nowMs = atMs;
      assert.equal(cluster.disks.createCalls, attempts, `attempts by ${atMs} ms`);
    }
    const events = await cluster.events("PersistentVolumeClaim", "data");
    assert.deepEqual(events, [{ type: "Warning", reason: "ProvisioningFailed", message: expectedMessage, count: 8 }]);
    assert.equal((await cluster.claim("default", "data")).status?.phase, "Pending");
    await cluster.stop();
  });

  it("forgets the selected node after a failed provisioning so the scheduler can choose again", async () => {
    const cluster = await clusterWithClass({ bindingMode: "WaitForFirstConsumer" });
    await createClaim(cluster);
    cluster.disks.failCreates(1, "zone-b is out of capacity");
    await selectNode(cluster, "node-a");

    const claim = await cluster.claim("default", "data");
    assert.equal(claim.metadata?.annotations?.["volume.kubernetes.io/selected-node"], undefined);
    assert.equal(claim.status?.phase, "Pending");
    const reasons = (await cluster.events("PersistentVolumeClaim", "data")).map((event) => event.reason);
    assert.deepEqual(reasons, ["WaitForFirstConsumer", "ProvisioningFailed"]);
    await cluster.stop();
  });

  it("refuses a selected node that does not exist", async () => {
    const cluster = await clusterWithClass({ bindingMode: "WaitForFirstConsumer" });
    await createClaim(cluster);
    await selectNode(cluster, "ghost");
    const events = await cluster.events("PersistentVolumeClaim", "data");
    assert.equal(events.at(-1)?.message, 'Failed to get target node: node "ghost" not found');
    assert.equal(cluster.disks.disks.size, 0);
    await cluster.stop();
  });

  it("refuses parameters it does not know", async () => {
    const cluster = await clusterWithClass({ parameters: { iops: "3000" } });
    await createClaim(cluster);
    const events = await cluster.events("PersistentVolumeClaim", "data");
    assert.equal(
      events[0]?.message,
      'Failed to provision volume with StorageClass "fast": invalid option "iops" for volume plugin kvol.io/sim-disk',
    );
    await cluster.stop();
  });

  it("deletes the disk when the PV cannot be saved after 5 tries 10 s apart, and provisions again later", async () => {
    const cluster = await clusterWithClass();
    cluster.faults.fail("persistentVolumes", "create", 5, "etcdserver: leader changed");
    const { uid, pvName } = await createClaim(cluster);
    assert.ok(cluster.disks.has(pvName));
    await cluster.run(49_999);
    assert.ok(cluster.disks.has(pvName), "still trying to save the PV");
    await cluster.run(1);
    assert.equal(cluster.disks.has(pvName), false, "the orphan disk is deleted");
    assert.deepEqual(await cluster.events("PersistentVolumeClaim", "data"), [
      {
        type: "Warning",
        reason: "ProvisioningFailed",
        message:
          "Error creating provisioned PV object for claim default/data: etcdserver: leader changed. Deleting the volume.",
        count: 1,
      },
    ]);

    await cluster.run(10_000);
    const claim = await cluster.claim("default", "data");
    assert.equal(claim.status?.phase, "Bound", "the resync at 60 s provisions again");
    assert.equal(claim.spec?.volumeName, `pvc-${uid}`);
    await cluster.stop();
  });

  it("says so when the disk of an unsaved PV cannot be deleted either", async () => {
    const cluster = await clusterWithClass();
    cluster.faults.fail("persistentVolumes", "create", 5, "etcdserver: leader changed");
    const { pvName } = await createClaim(cluster);
    cluster.disks.attach(pvName, "node-a");
    await cluster.run(100_000);
    const events = await cluster.events("PersistentVolumeClaim", "data");
    assert.deepEqual(events.at(-1), {
      type: "Warning",
      reason: "ProvisioningCleanupFailed",
      message:
        `Error cleaning provisioned volume for claim default/data: disk ${pvName} is still attached to node-a; ` +
        "detach it before deleting. Please delete manually.",
      count: 1,
    });
    await cluster.stop();
  });
});

describe("provisioning by others", () => {
  it("only annotates the claim and waits for an external provisioner", async () => {
    const cluster = await clusterWithClass({ provisioner: "csi.example.com" });
    await createClaim(cluster);
    const claim = await cluster.claim("default", "data");
    assert.equal(claim.status?.phase, "Pending");
    assert.equal(claim.metadata?.annotations?.["volume.kubernetes.io/storage-provisioner"], "csi.example.com");
    assert.equal(claim.metadata?.annotations?.["volume.beta.kubernetes.io/storage-provisioner"], "csi.example.com");
    assert.deepEqual(await cluster.events("PersistentVolumeClaim", "data"), [
      {
        type: "Normal",
        reason: "ExternalProvisioning",
        message:
          "Waiting for a volume to be created either by the external provisioner 'csi.example.com' or manually by " +
          "the system administrator. If volume creation is delayed, please verify that the provisioner is running " +
          "and correctly registered.",
        count: 1,
      },
    ]);
    await cluster.stop();
  });

  it("cannot provision local volumes: the claim waits for an administrator's PV", async () => {
    const cluster = await clusterWithClass({ provisioner: "kubernetes.io/no-provisioner" });
    await createClaim(cluster);
    assert.equal((await cluster.claim("default", "data")).status?.phase, "Pending");
    assert.deepEqual(await cluster.events("PersistentVolumeClaim", "data"), [
      {
        type: "Warning",
        reason: "ProvisioningFailed",
        message: "no volume plugin matched name: kubernetes.io/no-provisioner",
        count: 1,
      },
    ]);
    await cluster.stop();
  });

  it("reports a class that does not exist", async () => {
    const cluster = await clusterWithClass();
    await createClaim(cluster, { className: "missing" });
    const events = await cluster.events("PersistentVolumeClaim", "data");
    assert.equal(events[0]?.message, 'storageclass.storage.k8s.io "missing" not found');
    await cluster.stop();
  });
});
