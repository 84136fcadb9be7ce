import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MockDriver } from "../../csi/drivers/mock/mock-driver.ts";
import { connectCsiInProcess } from "../../csi/grpc/in-process.ts";
import { externalAttachers, externalProvisioners } from "./sidecar-group.ts";
import { startSidecarEnv, testNamespace } from "./testing/sidecar-test-env.ts";

describe("the sidecar groups of a cluster", () => {
  it("run one provisioner (with its capacity and cloning-protection controllers) and one attacher per driver, each handling only its own driver's objects", async () => {
    const env = await startSidecarEnv({ provisioner: false, attacher: false });
    const { client, clock } = env.api;
    const second = new MockDriver({ clock, name: "second.csi.kvol.io" });
    const drivers = [
      { name: env.mock.name, client: connectCsiInProcess(env.mock.implementations()) },
      { name: second.name, client: connectCsiInProcess(second.implementations()), hostName: "second-0" },
    ];
    const groups = [externalProvisioners(env.context, drivers), externalAttachers(env.context, drivers)];
    for (const group of groups) group.start();
    assert.deepEqual(
      groups.map((group) => group.members.length),
      [6, 2],
    );
    await env.addClass("fast");
    await client.storageClasses.create({
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { name: "second" },
      provisioner: second.name,
      volumeBindingMode: "Immediate",
    });
    await env.addClaim("one", { className: "fast" });
    await env.addClaim("two", { className: "second" });
    await env.runUntil(async () => {
      const claims = (await client.persistentVolumeClaims.list()).items;
      return claims.every((claim) => claim.status?.phase === "Bound");
    });
    assert.deepEqual(env.mock.calls("CreateVolume").length, 1);
    assert.deepEqual(second.calls("CreateVolume").length, 1);
    const sources = (await env.events("PersistentVolumeClaim", "two")).map((event) => event.source);
    assert.ok(sources.some((source) => source.startsWith("second.csi.kvol.io_second-0_")));
    await client.persistentVolumeClaims.delete(testNamespace, "two");
    await env.runUntil(() => second.calls("DeleteVolume").length === 1);
    const stopping = Promise.all(groups.map((group) => group.stop()));
    await env.stop();
    await stopping;
  });
});
