import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../cmd/cluster.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { runChecked } from "./checked-run.ts";
import { InvariantChecker } from "./checker.ts";
import { noLeakedAttachment } from "./no-leaked-attachment.ts";

const minuteMs = 60_000;
/** 4 min 2.2 s: a 2-minute CSI timeout, the 2m2s backoff cap, two 100 ms loops. */
const graceMs = 242_200;

/** A pod on node-a using `disk` through a claim, so it accounts for the disk's attachment. */
const podUsingDisk = (disk: string) => `
apiVersion: v1
kind: PersistentVolume
metadata: { name: pv-kept }
spec:
  capacity: { storage: 1Gi }
  accessModes: [ReadWriteOnce]
  flexVolume: { driver: kvol.io/sim-disk, options: { diskId: ${disk} } }
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: kept }
spec:
  accessModes: [ReadWriteOnce]
  volumeName: pv-kept
  storageClassName: ""
  resources: { requests: { storage: 1Gi } }
---
apiVersion: v1
kind: Pod
metadata: { name: app }
spec:
  nodeName: node-a
  containers: [{ name: app, image: busybox:1.36 }]
  volumes: [{ name: data, persistentVolumeClaim: { claimName: kept } }]
`;

async function clusterWithLeftAttachment(startCluster: ReturnType<typeof clusterPerTest>): Promise<Cluster> {
  const cluster = await startCluster({ seed: 3 });
  await cluster.addNode("node-a", { agent: "heartbeat" });
  cluster.world.disks.createDisk("d-left", 2 ** 30);
  // A controller that forgot to detach leaves exactly this: the disk attached, no pod using it.
  let attached = false;
  void cluster.world.disks.attach("d-left", "node-a").then(() => {
    attached = true;
  });
  await cluster.runUntil(() => attached, { timeoutMs: minuteMs, description: "disk d-left attached" });
  return cluster;
}

describe("no-leaked-attachment", () => {
  const startCluster = clusterPerTest();

  it("catches a disk left attached to a Ready node no pod uses, once the grace has passed", async () => {
    const cluster = await clusterWithLeftAttachment(startCluster);
    const checker = new InvariantChecker(cluster, [noLeakedAttachment]);
    assert.equal(await runChecked(cluster, checker, { forMs: graceMs - 1_000 }), undefined, "within the grace");
    const report = await runChecked(cluster, checker, { forMs: minuteMs });
    assert.ok(report, "the leaked attachment is reported");
    assert.deepEqual(report.violations[0]?.objects, ["disk/d-left", "Node/node-a"]);
    assert.match(
      report.violations[0]?.message ?? "",
      /^disk d-left \(attached in the disk provider\) stays attached to node-a: no pod on the node has used it, mounted it or reported it in use since \S+, longer than the 242200 ms teardown grace$/,
    );
  });

  it("leaves alone a disk a pod on the node still uses", async () => {
    const cluster = await clusterWithLeftAttachment(startCluster);
    await cluster.apply(podUsingDisk("d-left"));
    const checker = new InvariantChecker(cluster, [noLeakedAttachment]);
    assert.equal(await runChecked(cluster, checker, { forMs: 3 * graceMs }), undefined);
  });

  it("does not count the time the node is not Ready, nor a detach the storage refuses", async () => {
    const cluster = await clusterWithLeftAttachment(startCluster);
    const checker = new InvariantChecker(cluster, [noLeakedAttachment]);
    cluster.stopHeartbeat("node-a");
    assert.equal(await runChecked(cluster, checker, { forMs: 2 * graceMs }), undefined, "not Ready");
    cluster.startHeartbeat("node-a");
    cluster.world.disks.setFaults("d-left", { detachError: "the cloud refuses" });
    assert.equal(await runChecked(cluster, checker, { forMs: 2 * graceMs }), undefined, "detach refused");
    cluster.world.disks.setFaults("d-left", {});
    assert.equal(await runChecked(cluster, checker, { forMs: graceMs - 1_000 }), undefined, "the grace starts again");
    assert.equal((await runChecked(cluster, checker, { forMs: minuteMs }))?.violations[0]?.objects[0], "disk/d-left");
  });
});
