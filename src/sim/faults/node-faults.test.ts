import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clusterPerTest } from "../testing/clusters.ts";
import { isRunning, Milestones, podEventMessages, readText } from "../testing/e2e.ts";
import { faultNamed } from "./catalogue.ts";
import { isMounted, minuteMs, nodeReady, secondMs, startDiskPod } from "./testing/fault-test-support.ts";

/** --node-monitor-grace-period: 40 s. */
const nodeMonitorGracePeriodMs = 40 * secondMs;
/** --node-monitor-period: 5 s. */
const nodeMonitorPeriodMs = 5 * secondMs;

describe("node faults", () => {
  const startCluster = clusterPerTest();

  it("node-power-off: the node goes Unknown after the grace period and is Ready again once power returns", async () => {
    const cluster = await startCluster({ seed: 21 });
    await cluster.addNode("node-a");
    await cluster.runFor(15 * secondMs);
    assert.equal(await nodeReady(cluster, "node-a"), "True");

    const fault = faultNamed("node-power-off");
    const offAtMs = cluster.clock.now();
    await fault.inject(cluster, { node: "node-a" });
    assert.equal(cluster.world.node("node-a").poweredOn, false);
    const milestones = new Milestones(cluster, {
      unknown: async () => (await nodeReady(cluster, "node-a")) === "Unknown",
    });
    const unknownAtMs = await milestones.runUntil("unknown", 2 * minuteMs);
    const elapsedMs = unknownAtMs - offAtMs;
    assert.ok(
      elapsedMs >= nodeMonitorGracePeriodMs && elapsedMs <= nodeMonitorGracePeriodMs + 2 * nodeMonitorPeriodMs,
      `Unknown ${elapsedMs} ms after power-off`,
    );
    const node = await cluster.get("Node", "", "node-a");
    const ready = node.status?.conditions?.find((condition) => condition.type === "Ready");
    assert.equal(ready?.reason, "NodeStatusUnknown");
    assert.equal(ready?.message, "Kubelet stopped posting node status.");
    const taints = async () =>
      ((await cluster.get("Node", "", "node-a")).spec?.taints ?? [])
        .map((taint) => `${taint.key}:${taint.effect}`)
        .sort();
    await cluster.runUntil(async () => (await taints()).length === 2, {
      timeoutMs: 2 * nodeMonitorPeriodMs,
      description: "both unreachable taints",
    });
    assert.deepEqual(await taints(), [
      "node.kubernetes.io/unreachable:NoExecute",
      "node.kubernetes.io/unreachable:NoSchedule",
    ]);

    await fault.heal?.(cluster, { node: "node-a" });
    await cluster.runUntil(async () => (await nodeReady(cluster, "node-a")) === "True", {
      timeoutMs: minuteMs,
      description: "node-a Ready again",
    });
    assert.equal(cluster.world.node("node-a").poweredOn, true);
  });

  it("node-partition: the node goes Unknown while the machine keeps the pod's mount; healed, it is Ready again", async () => {
    const cluster = await startCluster({ seed: 22 });
    await cluster.addNode("node-a");
    const { podPath } = await startDiskPod(cluster);
    await cluster.world.node("node-a").writeFile(`${podPath}/row`, "committed");

    const fault = faultNamed("node-partition");
    const cutAtMs = cluster.clock.now();
    await fault.inject(cluster, { node: "node-a" });
    const unknownAfterMs = await cluster.runUntil(async () => (await nodeReady(cluster, "node-a")) === "Unknown", {
      timeoutMs: 2 * minuteMs,
      description: "node-a Unknown",
    });
    assert.ok(unknownAfterMs >= nodeMonitorGracePeriodMs, `Unknown ${unknownAfterMs} ms after the partition`);
    await cluster.runFor(minuteMs);
    const host = cluster.world.node("node-a");
    assert.equal(host.poweredOn, true, "the machine runs on");
    assert.ok(cluster.kubelet("node-a") !== undefined, "and so does its kubelet");
    assert.ok(await isMounted(cluster, "node-a", podPath), "the volume stays mounted on the machine");
    assert.equal(await readText(host, `${podPath}/row`), "committed");
    assert.ok(cluster.clock.now() - cutAtMs < 300 * secondMs);

    await fault.heal?.(cluster, { node: "node-a" });
    await cluster.runUntil(async () => (await nodeReady(cluster, "node-a")) === "True", {
      timeoutMs: minuteMs,
      description: "node-a Ready again",
    });
    assert.ok(isRunning(await cluster.get("Pod", "default", "app")), "the pod was never stopped");
    assert.ok(await isMounted(cluster, "node-a", podPath));
  });

  it("node-crash: the reboot drops every mount, and the kubelet mounts the running pod's volume again", async () => {
    const cluster = await startCluster({ seed: 23 });
    await cluster.addNode("node-a");
    const { pod, podPath } = await startDiskPod(cluster);
    const host = cluster.world.node("node-a");
    await host.writeFile(`${podPath}/row`, "before the crash");
    const bootsBefore = host.bootCount;

    await faultNamed("node-crash").inject(cluster, { node: "node-a" });
    await cluster.runFor(0);
    assert.equal(host.bootCount, bootsBefore + 1, "the machine rebooted");
    assert.equal(await isMounted(cluster, "node-a", podPath), false, "the kernel mounts are gone");

    await cluster.runUntil(
      async () =>
        (await isMounted(cluster, "node-a", podPath)) && isRunning(await cluster.get("Pod", "default", "app")),
      { timeoutMs: 3 * minuteMs, description: "the volume mounted again for a running pod" },
    );
    assert.equal(await readText(host, `${podPath}/row`), "before the crash", "no byte lost");
    assert.equal((await cluster.get("Pod", "default", "app")).metadata?.uid, pod.metadata?.uid, "the same pod");
  });

  it("node-crash with a downtime: the machine stays off that long, then boots", async () => {
    const cluster = await startCluster({ seed: 24 });
    await cluster.addNode("node-a");
    await cluster.runFor(15 * secondMs);
    await faultNamed("node-crash").inject(cluster, { node: "node-a", downtime: "1m" });
    await cluster.runFor(59 * secondMs);
    assert.equal(cluster.world.node("node-a").poweredOn, false);
    assert.equal(await nodeReady(cluster, "node-a"), "Unknown", "down longer than the grace period");
    await cluster.runUntil(async () => (await nodeReady(cluster, "node-a")) === "True", {
      timeoutMs: minuteMs,
      description: "node-a Ready after the reboot",
    });
    assert.equal(cluster.world.node("node-a").poweredOn, true);
  });

  it("kubelet-restart: the pod keeps running on its mounted volume, with no failed mount", async () => {
    const cluster = await startCluster({ seed: 25 });
    await cluster.addNode("node-a");
    const { pod, podPath } = await startDiskPod(cluster);
    const kubeletBefore = cluster.kubelet("node-a");
    const bootsBefore = cluster.world.node("node-a").bootCount;

    await faultNamed("kubelet-restart").inject(cluster, { node: "node-a" });
    assert.notEqual(cluster.kubelet("node-a"), kubeletBefore, "a new kubelet process");
    await cluster.runFor(2 * minuteMs);
    assert.equal(cluster.world.node("node-a").bootCount, bootsBefore, "the machine did not reboot");
    assert.ok(await isMounted(cluster, "node-a", podPath));
    assert.ok(isRunning(await cluster.get("Pod", "default", "app")));
    assert.deepEqual(await podEventMessages(cluster, pod, "FailedMount"), []);
  });

  it("kubelet-restart during a partition returns at once; the new kubelet gets going once the partition heals", async () => {
    const cluster = await startCluster({ seed: 27 });
    await cluster.addNode("node-a");
    const { podPath } = await startDiskPod(cluster);
    await faultNamed("node-partition").inject(cluster, { node: "node-a" });
    const before = cluster.kubelet("node-a");
    // No virtual time passes here: a restart waiting for the API would never return.
    await faultNamed("kubelet-restart").inject(cluster, { node: "node-a" });
    assert.notEqual(cluster.kubelet("node-a"), before, "the old kubelet is gone");
    await cluster.runFor(minuteMs);
    assert.ok(await isMounted(cluster, "node-a", podPath), "the machine keeps the mount meanwhile");

    await faultNamed("node-partition").heal?.(cluster, { node: "node-a" });
    await cluster.runUntil(
      async () => (await nodeReady(cluster, "node-a")) === "True" && cluster.kubelet("node-a") !== undefined,
      {
        timeoutMs: 2 * minuteMs,
        description: "node-a Ready with a running kubelet",
      },
    );
    assert.ok(isRunning(await cluster.get("Pod", "default", "app")));
  });

  it("refuses a node that runs no kubelet, naming the kubelet nodes", async () => {
    const cluster = await startCluster({ seed: 26 });
    await cluster.addNode("node-a");
    await assert.rejects(faultNamed("node-power-off").inject(cluster, { node: "node-z" }), {
      message: 'fault node-power-off: no kubelet node named "node-z" (kubelet nodes: node-a)',
    });
    await assert.rejects(faultNamed("node-power-off").inject(cluster, {}), {
      message: 'fault node-power-off: parameter "node" is required',
    });
  });
});
