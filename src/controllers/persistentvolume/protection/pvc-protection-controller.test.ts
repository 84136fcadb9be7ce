import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { testPod } from "../../../api/client/testing/test-api.ts";
import { type PvCluster, persistentVolumeClaim, setPodPhase, startPvCluster } from "../testing/pv-cluster.ts";

async function claimInUse(pod: { nodeName?: string; phase: string }): Promise<PvCluster> {
  const cluster = await startPvCluster({ protection: true });
  const { client } = cluster.api;
  await client.persistentVolumeClaims.create(persistentVolumeClaim("default", "data"));
  const created = await client.pods.create(testPod("default", "app", pod.nodeName, ["data"]));
  await setPodPhase(client, created, pod.phase);
  await cluster.run();
  return cluster;
}

describe("pvc-protection", () => {
  it("puts its finalizer on every claim", async () => {
    const cluster = await startPvCluster({ protection: true });
    await cluster.api.client.persistentVolumeClaims.create(persistentVolumeClaim("default", "data"));
    await cluster.run();
    assert.deepEqual((await cluster.claim("default", "data")).metadata?.finalizers, ["kubernetes.io/pvc-protection"]);
    await cluster.stop();
  });

  it("keeps a deleted claim Terminating while a running pod uses it, and lets it go with the pod", async () => {
    const cluster = await claimInUse({ nodeName: "node-a", phase: "Running" });
    const { client } = cluster.api;
    await client.persistentVolumeClaims.delete("default", "data");
    await cluster.run(5 * 60_000);
    const terminating = await cluster.claim("default", "data");
    assert.notEqual(terminating.metadata?.deletionTimestamp, undefined);
    assert.deepEqual(terminating.metadata?.finalizers, ["kubernetes.io/pvc-protection"]);

    await client.pods.delete("default", "app", { gracePeriodSeconds: 0 });
    await cluster.run();
    assert.equal(await cluster.claimExists("default", "data"), false);
    await cluster.stop();
  });

  for (const phase of ["Succeeded", "Failed"]) {
    it(`keeps a deleted claim while a ${phase} pod on a node still names it, and lets it go when the pod object is gone`, async () => {
      const cluster = await claimInUse({ nodeName: "node-a", phase: "Running" });
      const { client } = cluster.api;
      await client.persistentVolumeClaims.delete("default", "data");
      await cluster.run();
      assert.equal(await cluster.claimExists("default", "data"), true);

      await setPodPhase(client, await client.pods.get("default", "app"), phase);
      await cluster.run(10 * 60_000);
      const claim = await cluster.claim("default", "data");
      assert.deepEqual(claim.metadata?.finalizers, ["kubernetes.io/pvc-protection"], `a ${phase} pod still holds it`);

      await client.pods.delete("default", "app", { gracePeriodSeconds: 0 });
      await cluster.run();
      assert.equal(await cluster.claimExists("default", "data"), false);
      await cluster.stop();
    });
  }

  it("keeps a deleted claim for a pod that finished before the claim was deleted", async () => {
    const cluster = await claimInUse({ nodeName: "node-a", phase: "Failed" });
    await cluster.api.client.persistentVolumeClaims.delete("default", "data");
    await cluster.run(10 * 60_000);
    assert.equal(await cluster.claimExists("default", "data"), true);
    await cluster.stop();
  });

  it("does not hold a claim for a pod no node has been chosen for", async () => {
    const cluster = await claimInUse({ phase: "Pending" });
    await cluster.api.client.persistentVolumeClaims.delete("default", "data");
    await cluster.run();
    assert.equal(await cluster.claimExists("default", "data"), false);
    await cluster.stop();
  });

  it("keeps a deleted claim for a pod created a moment before that the pod cache has not seen yet", async () => {
    const cluster = await startPvCluster({ protection: true });
    const { client } = cluster.api;
    await client.persistentVolumeClaims.create(persistentVolumeClaim("default", "data"));
    await cluster.run();
    // The pod cache falls behind the store: it never sees the pod below.
    cluster.informers.informerFor("Pod").stop();
    await client.pods.create(testPod("default", "app", "node-a", ["data"]));
    await client.persistentVolumeClaims.delete("default", "data");
    await cluster.run(5 * 60_000);
    const claim = await cluster.claim("default", "data");
    assert.deepEqual(claim.metadata?.finalizers, ["kubernetes.io/pvc-protection"]);
    await cluster.stop();
  });

  it("releases a deleted claim from its cache alone once the cache has seen the pod go after the deletion", async () => {
    const cluster = await claimInUse({ nodeName: "node-a", phase: "Running" });
    const { client } = cluster.api;
    cluster.faults.fail("pods", "list", 1, "the pod cache is enough");
    await client.persistentVolumeClaims.delete("default", "data");
    await cluster.run();
    await client.pods.delete("default", "app", { gracePeriodSeconds: 0 });
    await cluster.run();
    assert.equal(await cluster.claimExists("default", "data"), false);
    assert.deepEqual(cluster.faults.refused, []);
    await cluster.stop();
  });
});
