import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../cmd/cluster.ts";
import { simDiskPluginName } from "../../volume/plugins/simdisk/sim-disk-source.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { isRunning, Milestones, nodeVolumes, podEventMessages } from "../testing/e2e.ts";
import { faultNamed } from "./catalogue.ts";
import { minuteMs, secondMs, startDiskPod } from "./testing/fault-test-support.ts";

function attachDetachController(cluster: Cluster) {
  return cluster.controllers.find((controller) => controller.name === "attachdetach-controller");
}

describe("control-plane faults", () => {
  const startCluster = clusterPerTest();

  it("controller-manager-restart: attached volumes stay attached, nothing is attached twice, and the new controllers work", async () => {
    const cluster = await startCluster({ seed: 31 });
    await cluster.addNode("node-a");
    const { pod, pvName } = await startDiskPod(cluster);
    const uniqueName = `${simDiskPluginName}/${pvName}`;
    const oldController = attachDetachController(cluster);
    const scheduler = cluster.controllers.find((controller) => controller.name === "default-scheduler");

    await faultNamed("controller-manager-restart").inject(cluster, {});
    assert.notEqual(attachDetachController(cluster), oldController, "a fresh attach/detach controller");
    assert.equal(
      cluster.controllers.find((controller) => controller.name === "default-scheduler"),
      scheduler,
      "the scheduler is another process and keeps running",
    );
    const milestones = new Milestones(cluster, {
      droppedFromNodeStatus: async () => !(await nodeVolumes(cluster, "node-a")).attached.includes(uniqueName),
    });
    await milestones.runFor(3 * minuteMs);
    assert.equal(milestones.has("droppedFromNodeStatus"), false, "the volume never left node.status.volumesAttached");
    assert.equal(cluster.world.disks.disk(pvName).attachments.get("node-a")?.state, "attached");
    assert.deepEqual(await podEventMessages(cluster, pod, "SuccessfulAttachVolume"), [
      `AttachVolume.Attach succeeded for volume "${pvName}" `,
    ]);
    assert.ok(isRunning(await cluster.get("Pod", "default", "app")));

    await cluster.delete("Pod", "default", "app");
    await cluster.runUntil(async () => cluster.world.disks.disk(pvName).attachments.size === 0, {
      timeoutMs: 3 * minuteMs,
      description: "the restarted controller detaches the volume of the deleted pod",
    });
  });

  it("api-latency: every operation still completes, later; healed, requests are answered at once again", async () => {
    const timeToRunning = async (latency: string | undefined): Promise<{ cluster: Cluster; elapsedMs: number }> => {
      const cluster = await startCluster({ seed: 32 });
      await cluster.addNode("node-a");
      await cluster.runFor(15 * secondMs);
      if (latency !== undefined) await faultNamed("api-latency").inject(cluster, { delay: latency });
      const startedMs = cluster.clock.now();
      await startDiskPod(cluster);
      return { cluster, elapsedMs: cluster.clock.now() - startedMs };
    };
    const baseline = await timeToRunning(undefined);
    const slowed = await timeToRunning("2s");
    assert.ok(
      slowed.elapsedMs >= baseline.elapsedMs + 5 * 2 * secondMs,
      `running after ${slowed.elapsedMs} ms with 2s latency, ${baseline.elapsedMs} ms without`,
    );
    assert.equal(slowed.cluster.apiFaults.latencyMs, 2 * secondMs);

    await faultNamed("api-latency").heal?.(slowed.cluster, { delay: "2s" });
    assert.equal(slowed.cluster.apiFaults.latencyMs, 0);
    const deletedAtMs = slowed.cluster.clock.now();
    await slowed.cluster.delete("Pod", "default", "app");
    await slowed.cluster.runUntil(async () => (await slowed.cluster.tryGet("Pod", "default", "app")) === undefined, {
      timeoutMs: 2 * minuteMs,
      description: "the pod deleted",
    });
    assert.ok(slowed.cluster.clock.now() - deletedAtMs < baseline.elapsedMs + 30 * secondMs);
  });
});
