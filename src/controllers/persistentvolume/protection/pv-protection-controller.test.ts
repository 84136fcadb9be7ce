import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { persistentVolume, persistentVolumeClaim, startPvCluster } from "../testing/pv-cluster.ts";

describe("pv-protection", () => {
  it("keeps a deleted volume Terminating while it is Bound, and lets it go once released", async () => {
    const cluster = await startPvCluster({ protection: true });
    const { client } = cluster.api;
    await client.persistentVolumes.create(persistentVolume("pv-1", { reclaimPolicy: "Retain" }));
    await cluster.run();
    assert.deepEqual((await cluster.volume("pv-1")).metadata?.finalizers, ["kubernetes.io/pv-protection"]);
    await client.persistentVolumeClaims.create(persistentVolumeClaim("default", "data"));
    await cluster.run();

    await client.persistentVolumes.delete("", "pv-1");
    await cluster.run(5 * 60_000);
    const terminating = await cluster.volume("pv-1");
    assert.notEqual(terminating.metadata?.deletionTimestamp, undefined);
    assert.equal(terminating.status?.phase, "Bound");
    assert.equal((await cluster.claim("default", "data")).status?.phase, "Bound", "the claim keeps its volume");

    await client.persistentVolumeClaims.delete("default", "data");
    await cluster.run();
    assert.equal(await cluster.volumeExists("pv-1"), false);
    await cluster.stop();
  });
});
