import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../cmd/cluster.ts";
import { diskDriverName, mockDriverName } from "../../csi/drivers/common/constants.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { isRunning, podEventMessages, podEvents, waitingReason } from "../testing/e2e.ts";
import { claimYaml, podUsingClaimYaml, storageClassYaml } from "../testing/manifests.ts";
import { faultNamed } from "./catalogue.ts";
import { minuteMs, secondMs } from "./testing/fault-test-support.ts";

const appPod = (cluster: Cluster) => cluster.get("Pod", "default", "app");

/** Two kubelet nodes with mock.csi.kvol.io, and claim `data` bound to a mock volume. */
async function mockCluster(start: ReturnType<typeof clusterPerTest>, seed: number): Promise<Cluster> {
  const cluster = await start({ seed, csiDrivers: [{ name: mockDriverName }] });
  await cluster.addNode("node-a");
  await cluster.addNode("node-b");
  await cluster.apply(
    [
      storageClassYaml({ name: "mock", provisioner: mockDriverName, bindingMode: "Immediate" }),
      claimYaml("data", { storageClassName: "mock" }),
    ].join("---\n"),
  );
  await cluster.runUntil(
    async () => (await cluster.get("PersistentVolumeClaim", "default", "data")).status?.phase === "Bound",
    { timeoutMs: minuteMs, description: "claim data bound" },
  );
  return cluster;
}

async function runUntilPodEvent(cluster: Cluster, reason: string, text: string): Promise<string> {
  const matching = async () =>
    (await podEventMessages(cluster, await appPod(cluster), reason)).find((message) => message.includes(text));
  await cluster.runUntil(async () => (await matching()) !== undefined, {
    timeoutMs: 3 * minuteMs,
    description: `a ${reason} event saying ${text}`,
  });
  return (await matching()) ?? "";
}

async function runUntilAppRunning(cluster: Cluster): Promise<void> {
  await cluster.runUntil(async () => isRunning(await appPod(cluster)), {
    timeoutMs: 5 * minuteMs,
    description: "app running",
  });
}

describe("CSI faults", () => {
  const startCluster = clusterPerTest();

  it("csi-call-error on ControllerPublishVolume: FailedAttachVolume with the gRPC status, then the attach once healed", async () => {
    const cluster = await mockCluster(startCluster, 71);
    const fault = faultNamed("csi-call-error");
    const params = { method: "ControllerPublishVolume", code: "ResourceExhausted", message: "array full" };
    await fault.inject(cluster, params);
    await cluster.apply(podUsingClaimYaml("app", "data"));
    const message = await runUntilPodEvent(cluster, "FailedAttachVolume", "ResourceExhausted");
    assert.match(message, /^AttachVolume\.Attach failed for volume "pvc-[^"]+" : /);
    assert.match(message, /rpc error: code = ResourceExhausted desc = array full/);
    assert.equal(waitingReason(await appPod(cluster)), "ContainerCreating");

    await fault.heal?.(cluster, params);
    await runUntilAppRunning(cluster);
  });

  it("csi-deadline-exceeded on NodeStageVolume: FailedMount with DeadlineExceeded, retried until the call succeeds", async () => {
    const cluster = await mockCluster(startCluster, 72);
    await faultNamed("csi-deadline-exceeded").inject(cluster, { node: "node-a", times: 2 });
    await cluster.apply(podUsingClaimYaml("app", "data").replace("spec:\n", "spec:\n  nodeName: node-a\n"));
    const message = await runUntilPodEvent(cluster, "FailedMount", "DeadlineExceeded");
    assert.match(
      message,
      /^MountVolume\.MountDevice failed for volume "pvc-[^"]+" : rpc error: code = DeadlineExceeded desc = context deadline exceeded$/,
    );
    await runUntilAppRunning(cluster);
    const deadlineEvents = (await podEvents(cluster, await appPod(cluster), "FailedMount")).filter((event) =>
      event.message?.includes("DeadlineExceeded"),
    );
    assert.equal(deadlineEvents.length, 1, "one event, as the kubelet's recorder aggregates repeats");
    assert.equal(deadlineEvents[0]?.count, 2, "counting each of the two failed calls");
  });

  it("csi-deadline-exceeded with driver disk.csi.kvol.io: the kubelet's device mount is uncertain until healed", async () => {
    const cluster = await startCluster({ seed: 75, csiDrivers: [{ name: diskDriverName }] });
    await cluster.addNode("node-a");
    const fault = faultNamed("csi-deadline-exceeded");
    const params = { driver: diskDriverName, method: "NodeStageVolume" };
    await fault.inject(cluster, params);
    await cluster.apply(
      [
        storageClassYaml({ name: "disk", provisioner: diskDriverName, bindingMode: "Immediate" }),
        claimYaml("data", { storageClassName: "disk" }),
        podUsingClaimYaml("app", "data"),
      ].join("---\n"),
    );
    const message = await runUntilPodEvent(cluster, "FailedMount", "DeadlineExceeded");
    assert.match(
      message,
      /^MountVolume\.MountDevice failed for volume "pvc-[^"]+" : rpc error: code = DeadlineExceeded desc = context deadline exceeded$/,
    );
    const state = await cluster.kubelet("node-a")?.debugState();
    const volume = state?.actualStateOfWorld.find((entry) => entry.volumeName.startsWith("kubernetes.io/csi/disk."));
    assert.equal(volume?.deviceMountState, "DeviceMountUncertain");

    await fault.heal?.(cluster, params);
    await runUntilAppRunning(cluster);
    await assert.rejects(fault.inject(cluster, { driver: "ebs.csi.aws.com" }), {
      message: `fault csi-deadline-exceeded: parameter "driver": the cluster runs no bundled CSI driver named "ebs.csi.aws.com" (drivers: ${diskDriverName})`,
    });
  });

  it("csi-call-slow on NodePublishVolume: the pod starts only after the slow call", async () => {
    const cluster = await mockCluster(startCluster, 73);
    await faultNamed("csi-call-slow").inject(cluster, { method: "NodePublishVolume", delay: "45s" });
    const appliedAtMs = cluster.clock.now();
    await cluster.apply(podUsingClaimYaml("app", "data"));
    await cluster.runFor(40 * secondMs);
    assert.equal(waitingReason(await appPod(cluster)), "ContainerCreating");
    await runUntilAppRunning(cluster);
    assert.ok(cluster.clock.now() - appliedAtMs >= 45 * secondMs);
    assert.deepEqual(await podEventMessages(cluster, await appPod(cluster), "FailedMount"), []);
  });

  it("csi-node-plugin-restart: lists each node's plugin, restarts one, and refuses a driver the cluster lacks", async () => {
    const cluster = await mockCluster(startCluster, 74);
    const fault = faultNamed("csi-node-plugin-restart");
    assert.deepEqual(await fault.targets(cluster), [
      { node: "node-a", driver: mockDriverName },
      { node: "node-b", driver: mockDriverName },
    ]);
    await fault.inject(cluster, { node: "node-b", driver: mockDriverName });
    await cluster.runFor(0);
    assert.ok(cluster.logs.records.some((record) => record.message === "CSI node plugin restarted"));
    await assert.rejects(fault.inject(cluster, { node: "node-a", driver: "ebs.csi.aws.com" }), {
      message: `fault csi-node-plugin-restart: the cluster runs no CSI driver named "ebs.csi.aws.com" (drivers: ${mockDriverName})`,
    });
    await assert.rejects(faultNamed("csi-call-error").inject(cluster, { method: "NodeMountVolume" }), {
      message:
        /^fault csi-call-error: parameter "method": "NodeMountVolume" is not a CSI RPC \(RPCs: .*NodeStageVolume/,
    });
    await assert.rejects(faultNamed("csi-call-error").inject(cluster, { method: "NodeStageVolume", code: "Oops" }), {
      message: /^fault csi-call-error: parameter "code": "Oops" is not a gRPC status/,
    });
  });
});
