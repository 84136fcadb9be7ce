import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { testPod } from "../../api/client/testing/test-api.ts";
import type { Pod } from "../../api/objects.ts";
import { DeploymentController } from "./deployment-controller.ts";
import { GarbageCollector } from "./garbage-collector.ts";
import { ReplicaSetController } from "./replicaset-controller.ts";
import { StatefulSetController } from "./statefulset-controller.ts";
import { startWorkloadTestEnv, type WorkloadTestEnv } from "./testing/workload-test-env.ts";

const tenSecondsMs = 10_000;

describe("garbage collector", () => {
  let env: WorkloadTestEnv;
  afterEach(async () => env.stop());

  async function start(): Promise<WorkloadTestEnv> {
    env = await startWorkloadTestEnv((context) => [
      new StatefulSetController(context),
      new ReplicaSetController(context),
      new DeploymentController(context),
      new GarbageCollector(context),
    ]);
    return env;
  }

  it("deletes a StatefulSet's pods with it and keeps the claims", async () => {
    await start();
    await env.api.client.statefulSets.create({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { namespace: "default", name: "db" },
      spec: {
        replicas: 2,
        serviceName: "db",
        podManagementPolicy: "Parallel",
        selector: { matchLabels: { app: "db" } },
        template: { metadata: { labels: { app: "db" } }, spec: { containers: [{ name: "db", image: "postgres" }] } },
        volumeClaimTemplates: [
          {
            metadata: { name: "data" },
            spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
          },
        ],
      },
    });
    await env.runFor(tenSecondsMs);
    await env.startPod("default", "db-0");
    assert.deepEqual(await env.podNames(), ["db-0", "db-1"]);

    await env.api.client.statefulSets.delete("default", "db");
    await env.runFor(tenSecondsMs);
    const left = await env.pods();
    assert.deepEqual(
      left.map((pod) => pod.metadata?.name),
      ["db-0"],
      "the unscheduled pod is gone; the running one is Terminating, waiting for its kubelet",
    );
    assert.notEqual(left[0]?.metadata?.deletionTimestamp, undefined);
    const claims = await env.api.client.persistentVolumeClaims.list({ namespace: "default" });
    assert.deepEqual(claims.items.map((claim) => claim.metadata?.name).sort(), ["data-db-0", "data-db-1"]);
  });

  it("deletes a Deployment's ReplicaSets and, through them, their pods", async () => {
    await start();
    await env.api.client.deployments.create({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { namespace: "default", name: "web" },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx" }] } },
      },
    });
    await env.runFor(tenSecondsMs);
    assert.equal((await env.pods()).length, 2);

    await env.api.client.deployments.delete("default", "web");
    await env.runFor(tenSecondsMs);
    assert.deepEqual((await env.api.client.replicaSets.list()).items, []);
    assert.deepEqual(await env.pods(), []);
  });

  it("only drops the reference to a gone owner when another owner remains", async () => {
    await start();
    const keeper = await env.api.client.pods.create(testPod("default", "keeper"));
    const goner = await env.api.client.pods.create(testPod("default", "goner"));
    const reference = (pod: Pod) => ({
      apiVersion: "v1",
      kind: "Pod",
      name: pod.metadata?.name ?? "",
      uid: pod.metadata?.uid ?? "",
    });
    await env.api.client.persistentVolumeClaims.create({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { namespace: "default", name: "shared", ownerReferences: [reference(keeper), reference(goner)] },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    });
    await env.runFor(tenSecondsMs);

    await env.api.client.pods.delete("default", "goner");
    await env.runFor(tenSecondsMs);
    const claim = await env.api.client.persistentVolumeClaims.get("default", "shared");
    assert.deepEqual(claim.metadata?.ownerReferences, [reference(keeper)]);

    await env.api.client.pods.delete("default", "keeper");
    await env.runFor(tenSecondsMs);
    await assert.rejects(env.api.client.persistentVolumeClaims.get("default", "shared"), { reason: "NotFound" });
  });
});
