import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { persistentVolume, persistentVolumeClaim, startPvCluster } from "./testing/pv-cluster.ts";

describe("the PV controller's loops", () => {
  it("binds a claim to a volume created after its sync found none, at the next 15 s resync", async () => {
    const cluster = await startPvCluster();
    const { client } = cluster.api;
    await client.persistentVolumeClaims.create(persistentVolumeClaim("default", "data"));
    await cluster.run(5_000);
    assert.equal((await cluster.events("PersistentVolumeClaim", "data"))[0]?.reason, "FailedBinding");

    await client.persistentVolumes.create(persistentVolume("pv-late"));
    await cluster.run(9_999);
    assert.equal((await cluster.volume("pv-late")).status?.phase, "Available");
    assert.equal((await cluster.claim("default", "data")).status?.phase, "Pending", "a new volume wakes no claim");

    await cluster.run(1);
    const claim = await cluster.claim("default", "data");
    assert.equal(claim.status?.phase, "Bound");
    assert.equal(claim.spec?.volumeName, "pv-late");
    await cluster.stop();
  });

  it("gives one volume to only one of two claims that want it", async () => {
    const cluster = await startPvCluster();
    const { client } = cluster.api;
    await client.persistentVolumes.create(persistentVolume("pv-only"));
    await cluster.run();
    await client.persistentVolumeClaims.create(persistentVolumeClaim("default", "first"));
    await client.persistentVolumeClaims.create(persistentVolumeClaim("default", "second"));
    await cluster.run(60_000);

    const phases = [await cluster.claim("default", "first"), await cluster.claim("default", "second")].map(
      (claim) => `${claim.metadata?.name}:${claim.status?.phase}:${claim.spec?.volumeName ?? ""}`,
    );
    assert.deepEqual(phases, ["first:Bound:pv-only", "second:Pending:"]);
    assert.equal((await cluster.volume("pv-only")).spec?.claimRef?.name, "first");
    await cluster.stop();
  });

  it("writes nothing on a resync when everything is bound", async () => {
    const cluster = await startPvCluster();
    const { client } = cluster.api;
    await client.persistentVolumes.create(persistentVolume("pv-1"));
    await cluster.run();
    await client.persistentVolumeClaims.create(persistentVolumeClaim("default", "data"));
    await cluster.run();
    cluster.faults.writes.length = 0;
    await cluster.run(60_000);
    assert.deepEqual(cluster.faults.writes, []);
    await cluster.stop();
  });
});
