import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { DeploymentController } from "./deployment-controller.ts";
import { GarbageCollector } from "./garbage-collector.ts";
import { ReplicaSetController } from "./replicaset-controller.ts";
import { startWorkloadTestEnv, type WorkloadTestEnv } from "./testing/workload-test-env.ts";

const tenSecondsMs = 10_000;

describe("Foreground and Orphan deletion", () => {
  let env: WorkloadTestEnv;
  afterEach(async () => env.stop());

  async function startWithDeployment(): Promise<void> {
    env = await startWorkloadTestEnv((context) => [
      new ReplicaSetController(context),
      new DeploymentController(context),
      new GarbageCollector(context),
    ]);
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
    assert.equal((await env.podNames()).length, 2);
  }

  it("Foreground waits for the running pods, through the ReplicaSet, before the Deployment goes", async () => {
    await startWithDeployment();
    const [first] = await env.podNames();
    assert.ok(first);
    await env.startPod("default", first);
    await env.api.client.deployments.delete("default", "web", { propagationPolicy: "Foreground" });
    await env.runFor(tenSecondsMs);
    const deployment = await env.api.client.deployments.get("default", "web");
    assert.deepEqual(deployment.metadata?.finalizers, ["foregroundDeletion"], "the Deployment waits");
    const sets = await env.api.client.replicaSets.list({ namespace: "default" });
    assert.equal(sets.items.length, 1, "the ReplicaSet waits for its running pod too");
    assert.deepEqual(await env.podNames(), [first], "the unscheduled pod is gone, the running one terminates");

    await env.finishDeletion("default", first);
    await env.runFor(tenSecondsMs);
    assert.equal((await env.api.client.replicaSets.list({ namespace: "default" })).items.length, 0);
    await assert.rejects(env.api.client.deployments.get("default", "web"), /not found/);
  });

  it("Orphan removes the Deployment and leaves its ReplicaSet and pods running without it", async () => {
    await startWithDeployment();
    await env.api.client.deployments.delete("default", "web", { propagationPolicy: "Orphan" });
    await env.runFor(tenSecondsMs);
    await assert.rejects(env.api.client.deployments.get("default", "web"), /not found/);
    const sets = (await env.api.client.replicaSets.list({ namespace: "default" })).items;
    assert.equal(sets.length, 1);
    assert.equal(sets[0]?.metadata?.ownerReferences, undefined);
    assert.equal((await env.podNames()).length, 2, "the pods keep their owner, the ReplicaSet");
  });
});
