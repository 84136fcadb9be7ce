import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../cmd/cluster.ts";
import { brokenMultiAttachPolicy } from "../../controllers/attachdetach/testing/broken-multi-attach-policy.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { isRunning } from "../testing/e2e.ts";
import { claimYaml, podYaml, storageClassYaml } from "../testing/manifests.ts";
import { runChecked } from "./checked-run.ts";
import { InvariantChecker } from "./checker.ts";
import { formatVirtualTime } from "./object-history.ts";
import { rwoSingleAttach } from "./rwo-single-attach.ts";

const gibibyte = 2 ** 30;
const minuteMs = 60_000;

/** A PV naming the sim-disk `diskId`, with these access modes. */
function diskPvYaml(name: string, diskId: string, accessModes: string): string {
  return `
apiVersion: v1
kind: PersistentVolume
metadata: { name: ${name} }
spec:
  capacity: { storage: 1Gi }
  accessModes: [${accessModes}]
  flexVolume: { driver: kvol.io/sim-disk, options: { diskId: ${diskId} } }
`;
}

/** Two heartbeat-only nodes (machines in the world, no kubelet) and a disk attached to node-a. */
async function twoNodesAndADisk(cluster: Cluster, multiAttach = false): Promise<void> {
  await cluster.addNode("node-a", { agent: "heartbeat", zone: "zone-1" });
  await cluster.addNode("node-b", { agent: "heartbeat", zone: "zone-1" });
  cluster.world.disks.createDisk("disk-1", gibibyte, { zone: "zone-1", multiAttach });
  const attached = cluster.world.disks.attach("disk-1", "node-a");
  await cluster.runFor(minuteMs);
  await attached;
}

/** Attaches the disk to node-b behind the provider's back, as a broken cloud API would. */
function forceSecondAttachment(cluster: Cluster): void {
  const disk = cluster.world.disks.disk("disk-1");
  disk.attachments.set("node-b", { nodeName: "node-b", readOnly: false, state: "attached" });
  cluster.world.node("node-b").plugDisk(disk, false);
}

async function reportVolumesAttached(cluster: Cluster, nodeName: string, names: readonly string[]): Promise<void> {
  await cluster.client.nodes.mutate(
    "",
    nodeName,
    (draft) => {
      draft.status = { ...draft.status, volumesAttached: names.map((name) => ({ name, devicePath: "" })) };
    },
    { subresource: "status" },
  );
}

describe("rwo-single-attach", () => {
  const startCluster = clusterPerTest();

  it("catches a disk attached read-write to two nodes in the world, and reports when, what and how", async () => {
    const cluster = await startCluster({ seed: 3 });
    await twoNodesAndADisk(cluster);
    const checker = new InvariantChecker(cluster, [rwoSingleAttach]);
    assert.equal(await checker.check(), undefined, "one node is fine");
    await cluster.runFor(1_000);
    forceSecondAttachment(cluster);
    const report = await checker.check();
    assert.ok(report, "the double attach is reported");
    assert.equal(report.atMs, cluster.clock.now());
    assert.deepEqual(
      report.violations.map((violation) => [violation.invariant, violation.message]),
      [
        [
          "rwo-single-attach",
          "disk/disk-1 is attached read-write to 2 nodes (node-a, node-b) in the simulated world, but the disk does not allow multi-attach",
        ],
      ],
    );
    assert.deepEqual(report.violations[0]?.objects, ["disk/disk-1", "Node/node-a", "Node/node-b"]);
    assert.ok(
      report.history.includes(
        `${formatVirtualTime(report.atMs)} disk/disk-1: attachments: [node-a rw attached, node-b rw attached]`,
      ),
    );
    assert.ok(report.history.some((line) => line.includes("disk/disk-1: attachments: [node-a rw attached]")));
    assert.ok(
      report.history.some((line) => /Node\/node-b: created: Ready=true/.test(line)),
      report.history.join("\n"),
    );
  });

  it("allows a multi-attach disk on two nodes unless its PV is ReadWriteOnce", async () => {
    const cluster = await startCluster({ seed: 3 });
    await twoNodesAndADisk(cluster, true);
    const shared = cluster.world.disks.attach("disk-1", "node-b");
    await cluster.runFor(minuteMs);
    await shared;
    const checker = new InvariantChecker(cluster, [rwoSingleAttach]);
    assert.equal(await checker.check(), undefined, "no PV asks for one node");
    await cluster.apply(diskPvYaml("pv-shared", "disk-1", "ReadWriteMany"));
    await cluster.runFor(1_000);
    assert.equal(await checker.check(), undefined, "ReadWriteMany allows it");
    await cluster.client.persistentVolumes.mutate("", "pv-shared", (draft) => {
      if (draft.spec) draft.spec.accessModes = ["ReadWriteOnce"];
    });
    await cluster.runFor(1_000);
    const report = await checker.check();
    assert.equal(
      report?.violations[0]?.message,
      "disk/disk-1 is attached read-write to 2 nodes (node-a, node-b) in the simulated world, but its PersistentVolume allows ReadWriteOnce only",
    );
    assert.deepEqual(report?.violations[0]?.objects, [
      "disk/disk-1",
      "PersistentVolume/pv-shared",
      "Node/node-a",
      "Node/node-b",
    ]);
  });

  it("catches an RBD image of an RWO PV mapped read-write on two nodes, but not by a fenced client", async () => {
    const cluster = await startCluster({ seed: 3, controllers: [] });
    await cluster.addNode("node-a", { agent: "heartbeat" });
    await cluster.addNode("node-b", { agent: "heartbeat" });
    cluster.world.rbd.createImage("pool", "image-1", gibibyte);
    await cluster.apply(`
apiVersion: v1
kind: PersistentVolume
metadata: { name: pv-rbd }
spec:
  capacity: { storage: 1Gi }
  accessModes: [ReadWriteOnce]
  rbd: { monitors: [10.0.255.1:6789], pool: pool, image: image-1 }
`);
    const checker = new InvariantChecker(cluster, [rwoSingleAttach]);
    for (const nodeName of ["node-a", "node-b"]) {
      const result = await cluster.world.node(nodeName).run("rbd", ["map", "pool/image-1", "--id", "admin"]);
      assert.equal(result.exitCode, 0, result.output);
    }
    await cluster.runFor(1_000);
    assert.equal(
      (await checker.check())?.violations[0]?.message,
      "rbd/pool/image-1 is attached read-write to 2 nodes (node-a, node-b) in the simulated world, but its PersistentVolume allows ReadWriteOnce only",
    );
    cluster.world.fenceNode("node-a");
    assert.equal(await checker.check(), undefined, "node-a's client can no longer write");
  });

  it("catches an RWO volume the control plane reports attached to two nodes, in node status and in VolumeAttachments", async () => {
    const cluster = await startCluster({ seed: 3, controllers: [] });
    await cluster.addNode("node-a", { agent: "heartbeat" });
    await cluster.addNode("node-b", { agent: "heartbeat" });
    await cluster.apply(diskPvYaml("pv-1", "disk-9", "ReadWriteOnce"));
    const checker = new InvariantChecker(cluster, [rwoSingleAttach]);
    await reportVolumesAttached(cluster, "node-a", ["kvol.io/sim-disk/disk-9"]);
    await cluster.runFor(1_000);
    assert.equal(await checker.check(), undefined);
    await reportVolumesAttached(cluster, "node-b", ["kvol.io/sim-disk/disk-9"]);
    for (const nodeName of ["node-a", "node-b"]) {
      await cluster.client.volumeAttachments.create({
        apiVersion: "storage.k8s.io/v1",
        kind: "VolumeAttachment",
        metadata: { name: `va-${nodeName}` },
        spec: { attacher: "hostpath.csi.k8s.io", nodeName, source: { persistentVolumeName: "pv-1" } },
      });
      await cluster.client.volumeAttachments.mutate(
        "",
        `va-${nodeName}`,
        (draft) => {
          draft.status = { attached: true };
        },
        { subresource: "status" },
      );
    }
    await cluster.runFor(1_000);
    const report = await checker.check();
    assert.deepEqual(
      report?.violations.map((violation) => violation.message),
      [
        "disk/disk-9 is attached read-write to 2 nodes (node-a, node-b) according to node.status.volumesAttached, but its PersistentVolume allows ReadWriteOnce only",
        "PersistentVolume/pv-1 is attached read-write to 2 nodes (node-a, node-b) according to VolumeAttachments, but its PersistentVolume allows ReadWriteOnce only",
      ],
    );
    assert.ok(
      report?.history.some((line) =>
        line.includes("Node/node-b: updated: Ready=true volumesAttached=[kvol.io/sim-disk/disk-9]"),
      ),
    );
  });

  it("does not count a VolumeAttachment being deleted whose disk has already left its node", async () => {
    const cluster = await startCluster({ seed: 3, controllers: [] });
    await twoNodesAndADisk(cluster);
    await cluster.apply(diskPvYaml("pv-1", "disk-1", "ReadWriteOnce"));
    const checker = new InvariantChecker(cluster, [rwoSingleAttach]);
    for (const nodeName of ["node-a", "node-b"]) {
      await cluster.client.volumeAttachments.create({
        apiVersion: "storage.k8s.io/v1",
        kind: "VolumeAttachment",
        metadata: { name: `va-${nodeName}`, finalizers: ["external-attacher/disk-csi-kvol-io"] },
        spec: { attacher: "disk.csi.kvol.io", nodeName, source: { persistentVolumeName: "pv-1" } },
      });
      await cluster.client.volumeAttachments.mutate(
        "",
        `va-${nodeName}`,
        (draft) => {
          draft.status = { attached: true };
        },
        { subresource: "status" },
      );
    }
    // node-a's attachment is being deleted, its ControllerUnpublish still unanswered.
    await cluster.client.volumeAttachments.delete("", "va-node-a");
    await cluster.runFor(1_000);
    const stillOnNodeA = await checker.check();
    assert.deepEqual(
      stillOnNodeA?.violations.map((violation) => violation.message),
      [
        "PersistentVolume/pv-1 is attached read-write to 2 nodes (node-a, node-b) according to VolumeAttachments, but its PersistentVolume allows ReadWriteOnce only",
      ],
      "the disk is still on node-a: the deleted attachment counts",
    );
    const detached = cluster.world.disks.detach("disk-1", "node-a");
    await cluster.runFor(minuteMs);
    await detached;
    assert.equal(await checker.check(), undefined, "the disk has left node-a: only node-b holds it");
  });

  describe("a claim on a multi-attach disk used by pods on two nodes", () => {
    const sharedClassYaml = storageClassYaml({ name: "shared", parameters: { multiAttach: '"true"' } });
    const secondPodYaml = `
apiVersion: v1
kind: Pod
metadata: { name: second }
spec:
  nodeName: NODE
  containers: [{ name: app, image: busybox:1.36, volumeMounts: [{ name: data, mountPath: /data }] }]
  volumes: [{ name: data, persistentVolumeClaim: { claimName: data } }]
`;

    async function secondPodOnTheOtherNode(broken: boolean) {
      const cluster = await startCluster({
        seed: 8,
        ...(broken ? { multiAttachPolicy: brokenMultiAttachPolicy } : {}),
      });
      await cluster.addNode("node-a", { zone: "zone-1" });
      await cluster.addNode("node-b", { zone: "zone-1" });
      const checker = new InvariantChecker(cluster);
      await cluster.apply(
        `${sharedClassYaml}---\n${claimYaml("data", { storageClassName: "shared" })}---\n${podYaml("first", "persistentVolumeClaim: { claimName: data }")}`,
      );
      const first = async () => cluster.tryGet("Pod", "default", "first");
      assert.equal(
        await runChecked(cluster, checker, { until: async () => isRunning(await first()), forMs: 2 * minuteMs }),
        undefined,
      );
      const other = (await first())?.spec?.nodeName === "node-a" ? "node-b" : "node-a";
      await cluster.apply(secondPodYaml.replace("NODE", other));
      return runChecked(cluster, checker, { forMs: 2 * minuteMs });
    }

    it("the attach/detach controller refuses the second attach: nothing to report", async () => {
      assert.equal(await secondPodOnTheOtherNode(false), undefined);
    });

    it("a controller that skips its multi-attach check is caught in the world and in node status", async () => {
      const report = await secondPodOnTheOtherNode(true);
      assert.ok(report, "the double attach is caught");
      const messages = report.violations.filter((violation) => violation.invariant === "rwo-single-attach");
      assert.match(
        messages[0]?.message ?? "",
        /^disk\/pvc-[-0-9a-f]+ is attached read-write to 2 nodes \(node-., node-.\) in the simulated world, but its PersistentVolume allows ReadWriteOnce only$/,
      );
    });
  });
});
