import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { Node } from "../../api/objects.ts";
import { podCondition } from "../../api/pod-conditions.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import {
  type NodeLifecycleTestEnv,
  startNodeLifecycleTestEnv,
  testNamespace,
} from "./testing/node-lifecycle-test-env.ts";

/** Kubernetes' --node-monitor-grace-period: 40 s. */
const nodeMonitorGracePeriodMs = 40_000;
/** Kubernetes' --node-monitor-period: 5 s. */
const nodeMonitorPeriodMs = 5_000;
/** Kubernetes' --node-startup-grace-period: 60 s. */
const nodeStartupGracePeriodMs = 60_000;
/** Kubernetes' the kubelet renews its 40 s Lease every 10 s. */
const nodeLeaseRenewIntervalMs = 10_000;

let env: NodeLifecycleTestEnv | undefined;

async function setup(): Promise<NodeLifecycleTestEnv> {
  env = await startNodeLifecycleTestEnv();
  return env;
}

afterEach(async () => {
  await env?.stop();
  env = undefined;
});

function ready(node: Node) {
  return node.status?.conditions?.find((condition) => condition.type === "Ready");
}

function taintTexts(node: Node): string[] {
  return (node.spec?.taints ?? []).map((taint) => `${taint.key}:${taint.effect}`).sort();
}

describe("NodeLifecycleController", () => {
  it("leaves a node whose kubelet keeps renewing its Lease alone", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.runFor(10 * 60_000);
    const node = await env.node("node-1");
    assert.equal(ready(node)?.status, "True");
    assert.deepEqual(taintTexts(node), []);
    assert.deepEqual(await env.eventsAbout("node-1"), ["RegisteredNode: Registered Node node-1 in Controller"]);
  });

  it("marks a silent node Unknown after the 40 s grace period and taints it unreachable", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.addRunningPod("web", "node-1");
    await env.runFor(60_000);
    env.powerOff("node-1");
    const lastRenewalMs = env.elapsedMs() - (env.elapsedMs() % nodeLeaseRenewIntervalMs);

    // Not before the grace period has passed…
    await env.runFor(lastRenewalMs + nodeMonitorGracePeriodMs - env.elapsedMs());
    assert.equal(ready(await env.node("node-1"))?.status, "True");

    // …and at the latest one monitor period (plus the pass that noticed the last renewal) later.
    await env.runFor(2 * nodeMonitorPeriodMs);
    const node = await env.node("node-1");
    const condition = ready(node);
    assert.equal(condition?.status, "Unknown");
    assert.equal(condition?.reason, "NodeStatusUnknown");
    assert.equal(condition?.message, "Kubelet stopped posting node status.");
    for (const type of ["MemoryPressure", "DiskPressure", "PIDPressure"]) {
      const other = node.status?.conditions?.find((entry) => entry.type === type);
      assert.equal(other?.status, "Unknown", type);
      assert.equal(other?.reason, "NodeStatusNeverUpdated", type);
    }
    assert.ok(taintTexts(node).includes("node.kubernetes.io/unreachable:NoSchedule"));

    // The NoExecute taint follows on the next pass, which observes Ready=Unknown.
    await env.runFor(nodeMonitorPeriodMs);
    const tainted = await env.node("node-1");
    assert.deepEqual(taintTexts(tainted), [
      "node.kubernetes.io/unreachable:NoExecute",
      "node.kubernetes.io/unreachable:NoSchedule",
    ]);
    for (const taint of tainted.spec?.taints ?? []) assert.ok(taint.timeAdded, `${taint.key} has timeAdded`);

    assert.deepEqual(await env.eventsAbout("node-1"), [
      "RegisteredNode: Registered Node node-1 in Controller",
      "NodeNotReady: Node node-1 status is now: NodeNotReady",
    ]);
    const pod = await env.pod("web");
    assert.equal(podCondition(pod?.status, "Ready")?.status, "False");
    assert.deepEqual(await env.eventsAbout("web"), ["NodeNotReady: Node is not ready"]);
  });

  it("taints a node whose kubelet reports NotReady with not-ready, and clears the taints when it is Ready again", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.runFor(10_000);
    await env.postReady("node-1", "False");
    await env.runFor(2 * nodeMonitorPeriodMs);
    assert.deepEqual(taintTexts(await env.node("node-1")), [
      "node.kubernetes.io/not-ready:NoExecute",
      "node.kubernetes.io/not-ready:NoSchedule",
    ]);

    await env.postReady("node-1", "True");
    await env.runFor(2 * nodeMonitorPeriodMs);
    assert.deepEqual(taintTexts(await env.node("node-1")), []);
  });

  it("removes the unreachable taints when the node comes back", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.runFor(10_000);
    env.powerOff("node-1");
    await env.runFor(2 * 60_000);
    assert.equal(taintTexts(await env.node("node-1")).length, 2);

    await env.powerOn("node-1");
    await env.runFor(2 * nodeMonitorPeriodMs);
    const node = await env.node("node-1");
    assert.equal(ready(node)?.status, "True");
    assert.deepEqual(taintTexts(node), []);
  });

  it("mirrors a cordon as the unschedulable NoSchedule taint, and only touches its own taints", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.addTaint("node-1", { key: "dedicated", value: "db", effect: "NoSchedule" });
    await env.api.client.nodes.mutate("", "node-1", (draft) => {
      draft.spec = { ...draft.spec, unschedulable: true };
    });
    await env.runFor(1_000);
    assert.deepEqual(taintTexts(await env.node("node-1")), [
      "dedicated:NoSchedule",
      "node.kubernetes.io/unschedulable:NoSchedule",
    ]);
    await env.api.client.nodes.mutate("", "node-1", (draft) => {
      draft.spec = { ...draft.spec, unschedulable: false };
    });
    await env.runFor(1_000);
    assert.deepEqual(taintTexts(await env.node("node-1")), ["dedicated:NoSchedule"]);
  });

  it("gives a node that never reported Ready the 60 s startup grace before marking it Unknown", async () => {
    const env = await setup();
    await env.api.client.nodes.create({
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "silent" },
      spec: {},
    });
    await env.runFor(nodeStartupGracePeriodMs - 1_000);
    assert.equal(ready(await env.node("silent")), undefined);
    await env.runFor(2 * nodeMonitorPeriodMs);
    const condition = ready(await env.node("silent"));
    assert.equal(condition?.status, "Unknown");
    assert.equal(condition?.reason, "NodeStatusNeverUpdated");
    assert.equal(condition?.message, "Kubelet never posted node status.");
    assert.ok(condition?.lastTransitionTime !== undefined);
    assert.ok((condition?.lastTransitionTime ?? "") >= formatRfc3339(env.api.clock.now() - 10_000));
  });

  it("keeps pods of a healthy node Ready", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.addRunningPod("web", "node-1");
    await env.runFor(5 * 60_000);
    const pod = await env.api.client.pods.get(testNamespace, "web");
    assert.equal(podCondition(pod.status, "Ready")?.status, "True");
  });
});
