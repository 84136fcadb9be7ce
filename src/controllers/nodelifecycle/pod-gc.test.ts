import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import {
  type NodeLifecycleTestEnv,
  startNodeLifecycleTestEnv,
  testNamespace,
} from "./testing/node-lifecycle-test-env.ts";

/** Kubernetes' podgc quarantineTime: 40 s. */
const podGcQuarantineMs = 40_000;
/** Kubernetes' podgc gcCheckPeriod: 20 s. */
const podGcPeriodMs = 20_000;

let env: NodeLifecycleTestEnv | undefined;

async function setup(): Promise<NodeLifecycleTestEnv> {
  env = await startNodeLifecycleTestEnv();
  return env;
}

afterEach(async () => {
  await env?.stop();
  env = undefined;
});

const outOfService = { key: "node.kubernetes.io/out-of-service", value: "nodeshutdown", effect: "NoExecute" };
/** Keeps a deleted pod around (Terminating) whatever its node does, so the test sees what pod GC decides. */
const hold = "example.com/hold";

describe("PodGcController", () => {
  it("force-deletes a pod bound to a node that was deleted, after the 40 s quarantine", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.addRunningPod("web", "node-1");
    await env.runFor(1_000);
    await env.api.client.nodes.delete("", "node-1");
    const deletedAtMs = env.elapsedMs();

    await env.runFor(podGcQuarantineMs - 1_000);
    assert.ok(await env.pod("web"), "still quarantined");
    await env.runFor(deletedAtMs + podGcQuarantineMs + 2 * podGcPeriodMs - env.elapsedMs());
    assert.equal(await env.pod("web"), undefined);
  });

  it("marks an orphan Failed with DisruptionTarget before deleting it", async () => {
    const env = await setup();
    await env.addRunningPod("web", "never-existed", { finalizers: [hold] });
    await env.runFor(podGcQuarantineMs + 2 * podGcPeriodMs);
    const pod = await env.api.client.pods.get(testNamespace, "web");
    assert.equal(pod.status?.phase, "Failed");
    const disruption = pod.status?.conditions?.find((condition) => condition.type === "DisruptionTarget");
    assert.equal(disruption?.reason, "DeletionByPodGC");
    assert.equal(disruption?.message, "PodGC: node no longer exists");
    assert.equal(pod.metadata?.deletionGracePeriodSeconds, 0);
  });

  it("leaves terminating pods on a Ready node alone even with the out-of-service taint", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.addRunningPod("web", "node-1", { tolerations: [{ operator: "Exists" }] });
    await env.api.client.pods.delete(testNamespace, "web");
    await env.addTaint("node-1", outOfService);
    await env.runFor(5 * 60_000);
    const pod = await env.pod("web");
    assert.ok(pod?.metadata?.deletionTimestamp);
    assert.equal(pod?.metadata?.deletionGracePeriodSeconds, 30);
  });

  it("force-deletes a terminating pod that never reached a node", async () => {
    const env = await setup();
    await env.api.client.pods.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace: testNamespace, name: "pending", finalizers: [hold] },
      spec: { containers: [{ name: "main", image: "busybox" }] },
    });
    await env.api.client.pods.delete(testNamespace, "pending");
    await env.runFor(podGcPeriodMs);
    const pod = await env.api.client.pods.get(testNamespace, "pending");
    assert.equal(pod.status?.phase, "Failed");
  });
});
