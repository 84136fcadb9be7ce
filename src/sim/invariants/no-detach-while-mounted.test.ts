import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../cmd/cluster.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { isRunning, mountPointsUnder } from "../testing/e2e.ts";
import { claimYaml, podYaml, storageClassYaml } from "../testing/manifests.ts";
import { runChecked } from "./checked-run.ts";
import { InvariantChecker } from "./checker.ts";
import { leftoverGraceMs } from "./constants.ts";

const minuteMs = 60_000;
const kubeletRoot = "/var/lib/kubelet";

/** A pod on node-a writing to a claim on a sim-disk; returns the disk id (the PV name). */
async function podWithDisk(cluster: Cluster, checker: InvariantChecker): Promise<string> {
  await cluster.addNode("node-a", { zone: "zone-1" });
  await cluster.apply(
    `${storageClassYaml()}---\n${claimYaml("data")}---\n${podYaml("app", "persistentVolumeClaim: { claimName: data }")}`,
  );
  const running = async () => isRunning(await cluster.tryGet("Pod", "default", "app"));
  assert.equal(await runChecked(cluster, checker, { until: running, forMs: 2 * minuteMs }), undefined);
  return (await cluster.get("PersistentVolumeClaim", "default", "data")).spec?.volumeName ?? "";
}

describe("no-detach-while-mounted", () => {
  const startCluster = clusterPerTest();

  it("catches a disk detached from a Ready node under its mounted filesystem", async () => {
    const cluster = await startCluster({ seed: 5 });
    const checker = new InvariantChecker(cluster);
    const diskId = await podWithDisk(cluster, checker);
    // Detach behind the control plane's back, as a provider-side mistake would.
    const detaching = cluster.world.disks.detach(diskId, "node-a");
    const report = await runChecked(cluster, checker, { forMs: minuteMs });
    await cluster.runFor(minuteMs);
    await detaching;
    assert.ok(report, "the detach is caught");
    const violations = report.violations.filter((violation) => violation.invariant === "no-detach-while-mounted");
    assert.deepEqual(
      violations.map((violation) => violation.message.replace(/pods\/[^/]+\//, "pods/<uid>/")),
      [
        `${kubeletRoot}/plugins/kvol.io/sim-disk/mounts/${diskId} on node-a: disk/${diskId} is being detached from node-a while the filesystem is mounted, and this began while node-a was Ready without the out-of-service taint`,
        `${kubeletRoot}/pods/<uid>/volumes/kvol.io~sim-disk/${diskId} on node-a: disk/${diskId} is being detached from node-a while the filesystem is mounted, and this began while node-a was Ready without the out-of-service taint`,
      ],
    );
    assert.deepEqual(violations[0]?.objects, [
      `node/node-a:${kubeletRoot}/plugins/kvol.io/sim-disk/mounts/${diskId}`,
      `disk/${diskId}`,
      "Node/node-a",
    ]);
    assert.ok(report.history.some((line) => line.endsWith(`disk/${diskId}: attachments: [node-a rw detaching]`)));
  });

  it("allows the 6-minute force detach from a node whose kubelet is gone, and the kubelet cleans up when it is back", async () => {
    const cluster = await startCluster({ seed: 6 });
    const checker = new InvariantChecker(cluster);
    const diskId = await podWithDisk(cluster, checker);
    const host = cluster.world.node("node-a");
    await cluster.stopKubelet("node-a");
    await cluster.delete("Pod", "default", "app", { gracePeriodSeconds: 0 });
    const detached = async () => !cluster.world.disks.disk(diskId).attachments.has("node-a");
    assert.equal(await runChecked(cluster, checker, { until: detached, forMs: 10 * minuteMs }), undefined);
    assert.equal((await mountPointsUnder(host, kubeletRoot)).length, 2, "the mounts stayed on the machine");

    await cluster.startKubelet("node-a");
    assert.equal(await runChecked(cluster, checker, { forMs: leftoverGraceMs + minuteMs }), undefined);
    assert.deepEqual(await mountPointsUnder(host, kubeletRoot), [], "the kubelet unmounted the dead mounts");
  });
});
