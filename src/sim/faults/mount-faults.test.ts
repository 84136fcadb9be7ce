import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../cmd/cluster.ts";
import { fuseDriverName } from "../../csi/drivers/common/constants.ts";
import { isHostError } from "../../host/host.ts";
import { csiPluginName } from "../../volume/paths.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { isRunning, podEventMessages, podVolumePath, waitingReason } from "../testing/e2e.ts";
import { claimYaml, podUsingClaimYaml, podYaml, storageClassYaml } from "../testing/manifests.ts";
import { faultNamed } from "./catalogue.ts";
import { isMounted, minuteMs, startDiskPod } from "./testing/fault-test-support.ts";

const nfsServer = "10.0.0.200";

/** What stat says of a path on the node: "ok" or the errno. */
async function statOnNode(cluster: Cluster, nodeName: string, path: string): Promise<string> {
  try {
    await cluster.world.node(nodeName).stat(path);
    return "ok";
  } catch (error) {
    if (isHostError(error)) return error.code;
    throw error;
  }
}

describe("mount faults", () => {
  const startCluster = clusterPerTest();

  it("mount-helper-missing: the NFS mount fails with exit status 32 until the helper is installed", async () => {
    const cluster = await startCluster({ seed: 41 });
    cluster.world.addNfsServer(nfsServer).addExport("/exports/data");
    await cluster.addNode("node-a");
    const fault = faultNamed("mount-helper-missing");
    await fault.inject(cluster, { node: "node-a" });
    await cluster.apply(podYaml("nfs-app", `nfs: { server: ${nfsServer}, path: /exports/data }`));
    const pod = () => cluster.get("Pod", "default", "nfs-app");
    await cluster.runUntil(async () => (await podEventMessages(cluster, await pod(), "FailedMount")).length > 0, {
      timeoutMs: minuteMs,
      description: "a FailedMount event",
    });
    const [message] = await podEventMessages(cluster, await pod(), "FailedMount");
    assert.match(message ?? "", /^MountVolume\.SetUp failed for volume "data" : mount failed: exit status 32\n/);
    assert.match(
      message ?? "",
      /-t nfs 10\.0\.0\.200:\/exports\/data \/var\/lib\/kubelet\/pods\/.+\/volumes\/kubernetes\.io~nfs\/data/,
    );
    assert.match(message ?? "", /missing codepage or helper program/);
    assert.equal(waitingReason(await pod()), "ContainerCreating");

    await fault.heal?.(cluster, { node: "node-a" });
    await cluster.runUntil(async () => isRunning(await pod()), {
      timeoutMs: 3 * minuteMs,
      description: "nfs-app running once mount.nfs is installed",
    });
  });

  it("mount-busy: a deleted pod stays Terminating while its mount is held, and goes once it is released", async () => {
    const cluster = await startCluster({ seed: 42 });
    await cluster.addNode("node-a");
    const { podPath } = await startDiskPod(cluster);
    const fault = faultNamed("mount-busy");
    assert.ok(
      (await fault.targets(cluster)).some((target) => target.node === "node-a" && target.path === podPath),
      "the pod's volume is a target",
    );
    await fault.inject(cluster, { node: "node-a", path: podPath });

    await cluster.delete("Pod", "default", "app");
    await cluster.runFor(2 * minuteMs);
    const terminating = await cluster.tryGet("Pod", "default", "app");
    assert.ok(terminating?.metadata?.deletionTimestamp !== undefined, "still Terminating");
    assert.ok(await isMounted(cluster, "node-a", podPath), "the busy mount is still there");

    await fault.heal?.(cluster, { node: "node-a", path: podPath });
    await cluster.runUntil(async () => (await cluster.tryGet("Pod", "default", "app")) === undefined, {
      timeoutMs: 3 * minuteMs,
      description: "the pod object gone",
    });
    assert.equal(await isMounted(cluster, "node-a", podPath), false);
  });

  it("mount-busy: names the pod and its volume instead of the path, and refuses what it cannot find", async () => {
    const cluster = await startCluster({ seed: 43 });
    await cluster.addNode("node-a");
    const { podPath } = await startDiskPod(cluster);
    const fault = faultNamed("mount-busy");
    await assert.rejects(fault.inject(cluster, { pod: "default/app", volume: "nope" }), {
      message: 'fault mount-busy: volume "nope" of pod default/app is not mounted on node "node-a"',
    });
    await assert.rejects(fault.inject(cluster, { pod: "default/ghost", volume: "data" }), {
      message: 'fault mount-busy: parameter "pod": no pod default/ghost',
    });
    await assert.rejects(fault.inject(cluster, { node: "node-a" }), {
      message: 'fault mount-busy: give either "path", or "pod" and "volume"',
    });
    await fault.inject(cluster, { pod: "default/app", volume: "data" });

    await cluster.delete("Pod", "default", "app");
    await cluster.runFor(2 * minuteMs);
    assert.ok((await cluster.tryGet("Pod", "default", "app"))?.metadata?.deletionTimestamp, "still Terminating");
    assert.ok(await isMounted(cluster, "node-a", podPath), "the pod's own volume mount is the one held");

    await fault.heal?.(cluster, { pod: "app", volume: "data" });
    await cluster.runUntil(async () => (await cluster.tryGet("Pod", "default", "app")) === undefined, {
      timeoutMs: 3 * minuteMs,
      description: "the pod object gone once the holder lets go",
    });
  });

  it("fuse-daemon-killed: the pod's FUSE mount answers ENOTCONN", async () => {
    const cluster = await startCluster({ seed: 43, csiDrivers: [{ name: fuseDriverName }] });
    await cluster.addNode("node-a", { repairCorruptedCsiMounts: false });
    await cluster.apply(
      [
        storageClassYaml({ name: "fuse", provisioner: fuseDriverName, bindingMode: "Immediate" }),
        claimYaml("bucket", { storageClassName: "fuse" }),
        podUsingClaimYaml("reader", "bucket"),
      ].join("---\n"),
    );
    await cluster.runUntil(async () => isRunning(await cluster.tryGet("Pod", "default", "reader")), {
      timeoutMs: 3 * minuteMs,
      description: "reader running",
    });
    const pod = await cluster.get("Pod", "default", "reader");
    const pvName = (await cluster.get("PersistentVolumeClaim", "default", "bucket")).spec?.volumeName ?? "";
    const mountPath = `${podVolumePath(pod, csiPluginName, pvName)}/mount`;
    assert.equal(await statOnNode(cluster, "node-a", mountPath), "ok");
    const fault = faultNamed("fuse-daemon-killed");
    const [target] = await fault.targets(cluster);
    assert.equal(target?.node, "node-a");
    assert.match(String(target?.daemon), /^kvolfs:/);

    await fault.inject(cluster, { node: "node-a" });
    assert.equal(await statOnNode(cluster, "node-a", mountPath), "ENOTCONN");
    await cluster.runFor(minuteMs);
    assert.equal(await statOnNode(cluster, "node-a", mountPath), "ENOTCONN", "the kubelet does not notice");
    assert.deepEqual(await fault.targets(cluster), [], "no daemon left to kill");
    await assert.rejects(fault.inject(cluster, { node: "node-a" }), {
      message: 'fault fuse-daemon-killed: no FUSE daemon runs on node "node-a"',
    });
  });
});
