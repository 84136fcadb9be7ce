import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { testPod } from "../../api/client/testing/test-api.ts";
import {
  type PvCluster,
  persistentVolume,
  persistentVolumeClaim,
  startPvCluster,
  storageClass,
} from "./testing/pv-cluster.ts";

const manual = "manual";

async function withManualVolumes(
  sizes: Record<string, string>,
  bindingMode: "Immediate" | "WaitForFirstConsumer" = "Immediate",
) {
  const cluster = await startPvCluster();
  const { client } = cluster.api;
  await client.storageClasses.create(
    storageClass(manual, { provisioner: "kubernetes.io/no-provisioner", bindingMode }),
  );
  for (const [name, capacity] of Object.entries(sizes)) {
    await client.persistentVolumes.create(persistentVolume(name, { capacity, className: manual }));
  }
  await cluster.run();
  return cluster;
}

async function createClaim(
  cluster: PvCluster,
  name: string,
  options: Parameters<typeof persistentVolumeClaim>[2] = {},
) {
  await cluster.api.client.persistentVolumeClaims.create(persistentVolumeClaim("default", name, options));
  await cluster.run();
  return cluster.claim("default", name);
}

describe("a claim without spec.volumeName", () => {
  it("binds to the smallest Available volume that fits, in four writes in order", async () => {
    const cluster = await withManualVolumes({ "pv-10g": "10Gi", "pv-2g": "2Gi", "pv-500m": "500Mi", "pv-5g": "5Gi" });
    cluster.faults.writes.length = 0;
    const claim = await createClaim(cluster, "data", { request: "1Gi", className: manual });

    assert.equal(claim.status?.phase, "Bound");
    assert.equal(claim.spec?.volumeName, "pv-2g");
    assert.deepEqual(claim.status?.capacity, { storage: "2Gi" });
    assert.deepEqual(claim.status?.accessModes, ["ReadWriteOnce"]);
    assert.equal(claim.metadata?.annotations?.["pv.kubernetes.io/bind-completed"], "yes");
    assert.equal(claim.metadata?.annotations?.["pv.kubernetes.io/bound-by-controller"], "yes");
    const volume = await cluster.volume("pv-2g");
    assert.equal(volume.status?.phase, "Bound");
    assert.equal(volume.spec?.claimRef?.uid, claim.metadata?.uid);
    assert.equal(volume.metadata?.annotations?.["pv.kubernetes.io/bound-by-controller"], "yes");
    assert.deepEqual(cluster.faults.writes, [
      "persistentVolumes.update pv-2g",
      "persistentVolumes.updateStatus pv-2g",
      "persistentVolumeClaims.update data",
      "persistentVolumeClaims.updateStatus data",
    ]);
    await cluster.stop();
  });

  it("retries a bind whose first write failed at the next resync, 15 s after the controller started", async () => {
    const cluster = await withManualVolumes({ "pv-1": "1Gi" });
    cluster.faults.fail("persistentVolumes", "update", 1, "etcdserver: request timed out");
    await createClaim(cluster, "data", { className: manual });
    await cluster.run(14_999);
    assert.equal((await cluster.claim("default", "data")).status?.phase, "Pending");
    assert.equal((await cluster.volume("pv-1")).status?.phase, "Available");

    await cluster.run(1);
    const claim = await cluster.claim("default", "data");
    assert.equal(claim.status?.phase, "Bound");
    assert.equal(claim.spec?.volumeName, "pv-1");
    assert.ok(cluster.api.logs.lines().some((line) => line.includes("etcdserver: request timed out")));
    await cluster.stop();
  });

  it("finishes a bind interrupted after its second write as soon as the volume's sync hands the claim back", async () => {
    const cluster = await withManualVolumes({ "pv-1": "1Gi" });
    cluster.faults.fail("persistentVolumeClaims", "update", 1, "etcdserver: request timed out");
    const claim = await createClaim(cluster, "data", { className: manual });
    assert.deepEqual(cluster.faults.refused, ["persistentVolumeClaims.update"]);
    assert.equal(claim.status?.phase, "Bound");
    assert.equal(claim.spec?.volumeName, "pv-1");
    await cluster.stop();
  });

  it("leaves the claim Pending with FailedBinding when nothing fits and no class is set", async () => {
    const cluster = await withManualVolumes({ "pv-1": "1Gi" });
    const claim = await createClaim(cluster, "big", { request: "5Gi" });
    assert.equal(claim.status?.phase, "Pending");
    assert.deepEqual(await cluster.events("PersistentVolumeClaim", "big"), [
      {
        type: "Normal",
        reason: "FailedBinding",
        message: "no persistent volumes available for this claim and no storage class is set",
        count: 1,
      },
    ]);
    await cluster.stop();
  });

  it("waits for its first consumer with WaitForFirstConsumer, then for the pods to be scheduled", async () => {
    const cluster = await withManualVolumes({ "pv-1": "1Gi" }, "WaitForFirstConsumer");
    const claim = await createClaim(cluster, "data", { className: manual });
    assert.equal(claim.status?.phase, "Pending");
    assert.deepEqual(await cluster.events("PersistentVolumeClaim", "data"), [
      {
        type: "Normal",
        reason: "WaitForFirstConsumer",
        message: "waiting for first consumer to be created before binding",
        count: 1,
      },
    ]);

    await cluster.api.client.pods.create(testPod("default", "web-0", undefined, ["data"]));
    await cluster.run(15_000);
    const afterOnePod = await cluster.events("PersistentVolumeClaim", "data");
    assert.deepEqual(afterOnePod.at(-1), {
      type: "Normal",
      reason: "WaitForPodScheduled",
      message: "waiting for pod web-0 to be scheduled",
      count: 1,
    });

    await cluster.api.client.pods.create(testPod("default", "web-1", undefined, ["data"]));
    await cluster.run(15_000);
    const afterTwoPods = await cluster.events("PersistentVolumeClaim", "data");
    assert.equal(afterTwoPods.at(-1)?.message, "waiting for pods web-0,web-1 to be scheduled");
    assert.equal((await cluster.claim("default", "data")).status?.phase, "Pending", "the scheduler binds it, not us");
    await cluster.stop();
  });

  it("is given the default StorageClass when it names none", async () => {
    const cluster = await startPvCluster();
    const { client } = cluster.api;
    await client.storageClasses.create(storageClass("old-default", { isDefault: true }));
    await cluster.run(1_000);
    await client.storageClasses.create(storageClass("standard", { isDefault: true }));
    await client.storageClasses.create(storageClass("fast"));
    const claim = await createClaim(cluster, "data", { className: null });
    assert.equal(claim.spec?.storageClassName, "standard", "the newest default class");

    const explicitlyNone = await createClaim(cluster, "no-class", { className: "" });
    assert.equal(explicitlyNone.spec?.storageClassName, "", "an explicit empty class stays empty");
    await cluster.stop();
  });
});

describe("pre-binding", () => {
  it("binds a claim that names its volume to that volume, even a larger one", async () => {
    const cluster = await withManualVolumes({ "pv-small": "1Gi", "pv-big": "10Gi" });
    const claim = await createClaim(cluster, "data", { className: manual, volumeName: "pv-big" });
    assert.equal(claim.status?.phase, "Bound");
    assert.equal(claim.spec?.volumeName, "pv-big");
    assert.equal(claim.metadata?.annotations?.["pv.kubernetes.io/bound-by-controller"], undefined);
    const volume = await cluster.volume("pv-big");
    assert.equal(volume.metadata?.annotations?.["pv.kubernetes.io/bound-by-controller"], "yes");
    await cluster.stop();
  });

  it("binds a volume reserved for a claim by claimRef to that claim, even in WaitForFirstConsumer mode", async () => {
    const cluster = await withManualVolumes({ "pv-small": "1Gi" }, "WaitForFirstConsumer");
    await cluster.api.client.persistentVolumes.create(
      persistentVolume("pv-reserved", {
        capacity: "8Gi",
        className: manual,
        claimRef: { namespace: "default", name: "data" },
      }),
    );
    await cluster.run();
    assert.equal((await cluster.volume("pv-reserved")).status?.phase, "Available");

    const claim = await createClaim(cluster, "data", { className: manual });
    assert.equal(claim.spec?.volumeName, "pv-reserved");
    assert.equal(claim.status?.phase, "Bound");
    assert.equal(claim.metadata?.annotations?.["pv.kubernetes.io/bound-by-controller"], "yes");
    const volume = await cluster.volume("pv-reserved");
    assert.equal(volume.spec?.claimRef?.uid, claim.metadata?.uid);
    assert.equal(volume.metadata?.annotations?.["pv.kubernetes.io/bound-by-controller"], undefined);
    await cluster.stop();
  });

  for (const [what, claimOptions, volumeOptions, reason] of [
    ["too small", { request: "5Gi" }, {}, "requested PV is too small"],
    ["of another class", {}, { className: "other" }, "storageClassName does not match"],
    ["of another volumeMode", { volumeMode: "Block" }, {}, "incompatible volumeMode"],
    ["without the access mode", { accessModes: ["ReadWriteMany"] }, {}, "incompatible accessMode"],
  ] as const) {
    it(`refuses a requested volume ${what} with VolumeMismatch`, async () => {
      const cluster = await startPvCluster();
      await cluster.api.client.persistentVolumes.create(
        persistentVolume("pv-1", { capacity: "1Gi", className: manual, ...volumeOptions }),
      );
      await cluster.run();
      const claim = await createClaim(cluster, "data", { className: manual, volumeName: "pv-1", ...claimOptions });
      assert.equal(claim.status?.phase, "Pending");
      assert.deepEqual(await cluster.events("PersistentVolumeClaim", "data"), [
        {
          type: "Warning",
          reason: "VolumeMismatch",
          message: `Cannot bind to requested volume "pv-1": ${reason}`,
          count: 1,
        },
      ]);
      await cluster.stop();
    });
  }

  it("refuses a requested volume that is being deleted", async () => {
    const cluster = await startPvCluster();
    const { client } = cluster.api;
    const held = persistentVolume("pv-1", { className: manual });
    held.metadata = { ...held.metadata, finalizers: ["example.com/hold"] };
    await client.persistentVolumes.create(held);
    await client.persistentVolumes.delete("", "pv-1");
    await cluster.run();
    await createClaim(cluster, "data", { className: manual, volumeName: "pv-1" });
    const events = await cluster.events("PersistentVolumeClaim", "data");
    assert.equal(
      events[0]?.message,
      'Cannot bind to requested volume "pv-1": the volume is marked for deletion "pv-1"',
    );
    await cluster.stop();
  });

  it("refuses a requested volume bound to another claim with FailedBinding", async () => {
    const cluster = await withManualVolumes({ "pv-1": "1Gi" });
    await createClaim(cluster, "first", { className: manual });
    const second = await createClaim(cluster, "second", { className: manual, volumeName: "pv-1" });
    assert.equal(second.status?.phase, "Pending");
    assert.deepEqual(await cluster.events("PersistentVolumeClaim", "second"), [
      {
        type: "Warning",
        reason: "FailedBinding",
        message: 'volume "pv-1" already bound to a different claim.',
        count: 1,
      },
    ]);
    await cluster.stop();
  });
});

describe("a bound claim", () => {
  it("is Lost with ClaimLost when its volume is deleted", async () => {
    const cluster = await withManualVolumes({ "pv-1": "1Gi" });
    await createClaim(cluster, "data", { className: manual });
    await cluster.api.client.persistentVolumes.delete("", "pv-1");
    await cluster.run();

    const claim = await cluster.claim("default", "data");
    assert.equal(claim.status?.phase, "Lost");
    assert.equal(claim.status?.capacity, undefined);
    assert.deepEqual(await cluster.events("PersistentVolumeClaim", "data"), [
      {
        type: "Warning",
        reason: "ClaimLost",
        message: "Bound claim has lost its PersistentVolume. Data on the volume is lost!",
        count: 1,
      },
    ]);
    await cluster.run(45_000);
    assert.equal((await cluster.events("PersistentVolumeClaim", "data")).length, 1, "the event comes once");
    await cluster.stop();
  });

  it("is Lost with ClaimMisbound when its volume is given to another claim", async () => {
    const cluster = await withManualVolumes({ "pv-1": "1Gi" });
    await createClaim(cluster, "first", { className: manual });
    const second = await createClaim(cluster, "second", { className: manual, request: "1Gi" });
    await cluster.api.client.persistentVolumes.mutate("", "pv-1", (draft) => {
      draft.spec = {
        ...draft.spec,
        claimRef: {
          kind: "PersistentVolumeClaim",
          namespace: "default",
          name: "second",
          uid: second.metadata?.uid ?? "",
        },
      };
    });
    await cluster.run(15_000);

    assert.equal((await cluster.claim("default", "first")).status?.phase, "Lost");
    assert.deepEqual(await cluster.events("PersistentVolumeClaim", "first"), [
      {
        type: "Warning",
        reason: "ClaimMisbound",
        message: "Two claims are bound to the same volume, this one is bound incorrectly",
        count: 1,
      },
    ]);
    await cluster.stop();
  });
});
