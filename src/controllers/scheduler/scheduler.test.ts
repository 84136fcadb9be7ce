import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { podCondition } from "../../api/pod-conditions.ts";
import { annBoundByController, annSelectedNode } from "./constants.ts";
import {
  hostnameLabel,
  type SchedulerTestEnv,
  startSchedulerTestEnv,
  testNamespace,
  zoneLabel,
} from "./testing/scheduler-test-env.ts";

let env: SchedulerTestEnv | undefined;

async function setup(): Promise<SchedulerTestEnv> {
  env = await startSchedulerTestEnv();
  return env;
}

afterEach(async () => {
  await env?.stop();
  env = undefined;
});

describe("Scheduler: node filters", () => {
  it("keeps pods off cordoned and tainted nodes unless they tolerate the taint", async () => {
    const env = await setup();
    await env.addNode("node-1", { taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] });
    await env.addNode("node-2", { unschedulable: true });
    await env.addNode("node-3");
    await env.addPod("web");
    await env.addPod("trainer", {
      tolerations: [{ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }],
    });
    await env.runFor(1_000);

    assert.equal(await env.nodeOf("web"), "node-3");
    // node-1 and node-3 both fit; node-1 has fewer pods.
    assert.equal(await env.nodeOf("trainer"), "node-1");
    assert.deepEqual(await env.eventsAbout("web"), [`Scheduled: Successfully assigned ${testNamespace}/web to node-3`]);
    const pod = await env.api.client.pods.get(testNamespace, "web");
    assert.equal(podCondition(pod.status, "PodScheduled")?.status, "True");
  });

  it("treats a node that is not Ready as carrying the not-ready or unreachable NoSchedule taint", async () => {
    const env = await setup();
    await env.addNode("node-1", { ready: "False" });
    await env.addNode("node-2", { ready: "Unknown" });
    await env.addPod("web");
    await env.runFor(1_000);
    assert.equal(await env.nodeOf("web"), undefined);
    assert.deepEqual(await env.eventsAbout("web"), [
      "FailedScheduling: 0/2 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, " +
        "1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }.",
    ]);

    await env.addPod("agent", { tolerations: [{ key: "node.kubernetes.io/unreachable", operator: "Exists" }] });
    await env.runFor(1_000);
    assert.equal(await env.nodeOf("agent"), "node-2");
  });

  it("honours nodeSelector and required node affinity (expressions and matchFields)", async () => {
    const env = await setup();
    await env.addNode("node-1", { labels: { [zoneLabel]: "a", disks: "2" } });
    await env.addNode("node-2", { labels: { [zoneLabel]: "b", disks: "8" } });
    await env.addNode("node-3", { labels: { [zoneLabel]: "c" } });
    await env.addPod("selected", { nodeSelector: { [zoneLabel]: "b" } });
    await env.addPod("many-disks", {
      requiredNodeTerms: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: "disks", operator: "Gt", values: ["4"] }] }],
      },
    });
    await env.addPod("not-a-or-b", {
      requiredNodeTerms: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: zoneLabel, operator: "NotIn", values: ["a", "b"] }] }],
      },
    });
    await env.addPod("by-name", {
      requiredNodeTerms: {
        nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["node-1"] }] }],
      },
    });
    await env.addPod("nowhere", { nodeSelector: { [zoneLabel]: "z" } });
    await env.runFor(1_000);

    assert.equal(await env.nodeOf("selected"), "node-2");
    assert.equal(await env.nodeOf("many-disks"), "node-2");
    assert.equal(await env.nodeOf("not-a-or-b"), "node-3");
    assert.equal(await env.nodeOf("by-name"), "node-1");
    assert.equal(await env.nodeOf("nowhere"), undefined);
    assert.deepEqual(await env.eventsAbout("nowhere"), [
      "FailedScheduling: 0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
    ]);
  });

  it("spreads identical pods: fewest pods first, then the smallest node name", async () => {
    const env = await setup();
    await env.addNode("node-b");
    await env.addNode("node-a");
    for (const name of ["p1", "p2", "p3"]) await env.addPod(name);
    await env.runFor(1_000);
    assert.deepEqual(
      [await env.nodeOf("p1"), await env.nodeOf("p2"), await env.nodeOf("p3")],
      ["node-a", "node-b", "node-a"],
    );
  });

  it("says there are no nodes when the cluster has none, and places the pod once one registers", async () => {
    const env = await setup();
    await env.addPod("web");
    await env.runFor(1_000);
    assert.deepEqual(await env.eventsAbout("web"), ["FailedScheduling: no nodes available to schedule pods"]);
    await env.addNode("node-1");
    await env.runFor(1_000);
    assert.equal(await env.nodeOf("web"), "node-1");
  });
});

describe("Scheduler: FailedScheduling", () => {
  it("reports every node's reason in Kubernetes' words and order, then retries when a node changes", async () => {
    const env = await setup();
    await env.addNode("node-a", { unschedulable: true });
    await env.addNode("node-b", { unschedulable: true });
    await env.addNode("node-c");
    await env.addClass("local", "WaitForFirstConsumer", { provisioner: "kubernetes.io/no-provisioner" });
    const claim = await env.addClaim("data", "local");
    await env.addVolume("local-a", { className: "local", onNode: "node-a", boundTo: claim });
    await env.bindClaim("data", "local-a");
    await env.addPod("db", { claims: ["data"] });
    await env.runFor(1_000);

    const message =
      "0/3 nodes are available: 1 node(s) had volume node affinity conflict, 2 node(s) were unschedulable.";
    assert.deepEqual(await env.eventsAbout("db"), [`FailedScheduling: ${message}`]);
    const pod = await env.api.client.pods.get(testNamespace, "db");
    const condition = podCondition(pod.status, "PodScheduled");
    assert.equal(condition?.status, "False");
    assert.equal(condition?.reason, "Unschedulable");
    assert.equal(condition?.message, message);
    assert.equal(env.scheduler.queueCounts().unschedulable, 1);

    // Uncordoning the node the volume lives on is a node update that moves the pod back to the queue.
    await env.api.client.nodes.mutate("", "node-a", (draft) => {
      draft.spec = { ...draft.spec, unschedulable: false };
    });
    await env.runFor(2_000);
    assert.equal(await env.nodeOf("db"), "node-a");
  });

  it("reports a missing claim and schedules the pod once the claim exists", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.addPod("web", { claims: ["data"] });
    await env.runFor(1_000);
    assert.deepEqual(await env.eventsAbout("web"), [
      'FailedScheduling: 0/1 nodes are available: persistentvolumeclaim "data" not found.',
    ]);
    await env.addClass("fast", "WaitForFirstConsumer");
    env.actAsVolumeControllers();
    await env.addClaim("data", "fast");
    await env.runFor(5_000);
    assert.equal(await env.nodeOf("web"), "node-1");
  });

  it("waits for unbound Immediate claims, which the PV controller binds", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.addNode("node-2");
    await env.addClass("standard", "Immediate");
    await env.addClaim("data", "standard");
    await env.addPod("web", { claims: ["data"] });
    await env.runFor(1_000);
    assert.deepEqual(await env.eventsAbout("web"), [
      "FailedScheduling: 0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.",
    ]);

    const claim = await env.claim("data");
    await env.addVolume("pv-2", { className: "standard", onNode: "node-2", boundTo: claim });
    await env.bindClaim("data", "pv-2");
    await env.runFor(2_000);
    assert.equal(await env.nodeOf("web"), "node-2");
  });
});

describe("Scheduler: volume binding", () => {
  it("places a pod where its bound volume lives", async () => {
    const env = await setup();
    for (const name of ["node-1", "node-2", "node-3"]) await env.addNode(name);
    await env.addClass("local", "WaitForFirstConsumer", { provisioner: "kubernetes.io/no-provisioner" });
    const claim = await env.addClaim("data", "local");
    await env.addVolume("local-2", { className: "local", onNode: "node-2", boundTo: claim });
    await env.bindClaim("data", "local-2");
    await env.addPod("db", { claims: ["data"] });
    await env.runFor(1_000);
    assert.equal(await env.nodeOf("db"), "node-2");
  });

  it("reserves an available local volume that fits the node for a WaitForFirstConsumer claim", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.addNode("node-2");
    await env.addClass("local", "WaitForFirstConsumer", { provisioner: "kubernetes.io/no-provisioner" });
    await env.addVolume("small-on-1", { className: "local", onNode: "node-1", capacity: "1Gi" });
    await env.addVolume("big-on-2", { className: "local", onNode: "node-2", capacity: "10Gi" });
    await env.addVolume("bigger-on-2", { className: "local", onNode: "node-2", capacity: "20Gi" });
    await env.addClaim("data", "local", "5Gi");
    env.actAsVolumeControllers();
    await env.addPod("db", { claims: ["data"] });
    await env.runFor(5_000);

    assert.equal(await env.nodeOf("db"), "node-2");
    // The smallest volume that fits is taken, and marked as chosen by a controller.
    const chosen = await env.api.client.persistentVolumes.get("", "big-on-2");
    assert.equal(chosen.spec?.claimRef?.name, "data");
    assert.equal(chosen.metadata?.annotations?.[annBoundByController], "yes");
    assert.equal((await env.claim("data")).spec?.volumeName, "big-on-2");
  });

  it("does not give the same volume to two pods scheduled back to back", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.addClass("local", "WaitForFirstConsumer", { provisioner: "kubernetes.io/no-provisioner" });
    await env.addVolume("only-one", { className: "local", onNode: "node-1" });
    await env.addClaim("data-1", "local");
    await env.addClaim("data-2", "local");
    env.actAsVolumeControllers();
    await env.addPod("db-1", { claims: ["data-1"] });
    await env.addPod("db-2", { claims: ["data-2"] });
    await env.runFor(5_000);

    assert.equal(await env.nodeOf("db-1"), "node-1");
    assert.equal(await env.nodeOf("db-2"), undefined);
    const events = await env.eventsAbout("db-2");
    assert.equal(
      events[0],
      "FailedScheduling: 0/1 nodes are available: 1 node(s) didn't find available persistent volumes to bind.",
    );
  });

  it("asks for provisioning on the chosen node, limited to the class's allowed topologies", async () => {
    const env = await setup();
    await env.addNode("node-1", { labels: { [zoneLabel]: "a" } });
    await env.addNode("node-2", { labels: { [zoneLabel]: "b" } });
    await env.addClass("zonal", "WaitForFirstConsumer", {
      allowedTopologies: [{ matchLabelExpressions: [{ key: zoneLabel, values: ["b"] }] }],
    });
    await env.addClaim("data", "zonal");
    env.actAsVolumeControllers();
    await env.addPod("db", { claims: ["data"] });
    await env.runFor(1_000);

    // Before the volume exists the pod waits, and the claim names the node to provision on.
    assert.equal((await env.claim("data")).metadata?.annotations?.[annSelectedNode], "node-2");
    await env.runFor(4_000);
    assert.equal(await env.nodeOf("db"), "node-2");
    const volumeName = (await env.claim("data")).spec?.volumeName ?? "";
    const volume = await env.api.client.persistentVolumes.get("", volumeName);
    assert.deepEqual(volume.spec?.nodeAffinity?.required?.nodeSelectorTerms[0]?.matchExpressions?.[0], {
      key: hostnameLabel,
      operator: "In",
      values: ["node-2"],
    });
  });

  it("says no node has a volume when a class cannot provision and no volume fits", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.addNode("node-2");
    await env.addClass("local", "WaitForFirstConsumer", { provisioner: "kubernetes.io/no-provisioner" });
    await env.addVolume("elsewhere", { className: "local", onNode: "node-9" });
    await env.addClaim("data", "local");
    await env.addPod("db", { claims: ["data"] });
    await env.runFor(1_000);
    assert.deepEqual(await env.eventsAbout("db"), [
      "FailedScheduling: 0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind.",
    ]);
  });

  it("chooses again when the provisioner gives the node back (selected-node removed)", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.addClass("fast", "WaitForFirstConsumer");
    await env.addClaim("data", "fast");
    await env.addPod("db", { claims: ["data"] });
    await env.runFor(500);
    assert.equal((await env.claim("data")).metadata?.annotations?.[annSelectedNode], "node-1");

    // A provisioner that fails removes the annotation so the scheduler chooses again.
    await env.api.client.persistentVolumeClaims.mutate(testNamespace, "data", (draft) => {
      const annotations = { ...draft.metadata?.annotations };
      delete annotations[annSelectedNode];
      draft.metadata = { ...draft.metadata, annotations };
    });
    await env.runFor(1_000);
    const events = await env.eventsAbout("db");
    assert.equal(
      events[0],
      'FailedScheduling: running PreBind plugin "VolumeBinding": binding volumes: provisioning failed for PVC "data"',
    );
    // The retry (after its 1 s backoff) promises the claim to the node again.
    await env.runFor(2_000);
    assert.equal((await env.claim("data")).metadata?.annotations?.[annSelectedNode], "node-1");
  });

  it("leaves a pod created with spec.nodeName alone, so its WaitForFirstConsumer claim never binds", async () => {
    const env = await setup();
    await env.addNode("node-1");
    await env.addClass("fast", "WaitForFirstConsumer");
    await env.addClaim("data", "fast");
    env.actAsVolumeControllers();
    await env.addPod("pinned", { nodeName: "node-1", claims: ["data"] });
    await env.runFor(60_000);

    const claim = await env.claim("data");
    assert.equal(claim.metadata?.annotations?.[annSelectedNode], undefined);
    assert.equal(claim.spec?.volumeName, undefined);
    assert.deepEqual(await env.eventsAbout("pinned"), []);
  });
});
