import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvariantViolation, invariant } from "../../runtime/assert.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { isRunning, readText } from "../testing/e2e.ts";
import { claimYaml, podYaml, storageClassYaml } from "../testing/manifests.ts";
import { runChecked } from "./checked-run.ts";
import { InvariantChecker } from "./checker.ts";
import { leftoverGraceMs } from "./constants.ts";
import { ledgerOf, writeToVolume } from "./data-ledger.ts";

const minuteMs = 60_000;
const claimPod = (name: string) => podYaml(name, "persistentVolumeClaim: { claimName: data }");

describe("InvariantChecker on a normal run", () => {
  const startCluster = clusterPerTest();

  it("finds nothing while a claim's pod runs, is replaced, writes data, is torn down and the claim deleted", async () => {
    const cluster = await startCluster({ seed: 20 });
    await cluster.addNode("node-a", { zone: "zone-1" });
    await cluster.addNode("node-b", { zone: "zone-1" });
    const checker = new InvariantChecker(cluster);
    await cluster.apply(`${storageClassYaml()}---\n${claimYaml("data")}---\n${claimPod("first")}`);
    const running = (name: string) => async () => isRunning(await cluster.tryGet("Pod", "default", name));
    assert.equal(await runChecked(cluster, checker, { until: running("first"), forMs: 2 * minuteMs }), undefined);

    await writeToVolume(cluster, {
      namespace: "default",
      pod: "first",
      volume: "data",
      path: "db/rows",
      content: "row 1\n",
    });
    await cluster.delete("Pod", "default", "first");
    const gone = async () => (await cluster.tryGet("Pod", "default", "first")) === undefined;
    assert.equal(await runChecked(cluster, checker, { until: gone, forMs: 2 * minuteMs }), undefined);
    await cluster.apply(claimPod("second"));
    assert.equal(await runChecked(cluster, checker, { until: running("second"), forMs: 3 * minuteMs }), undefined);
    const second = await cluster.get("Pod", "default", "second");
    const pvName = (await cluster.get("PersistentVolumeClaim", "default", "data")).spec?.volumeName ?? "";
    const host = cluster.world.node(second.spec?.nodeName ?? "");
    const path = `/var/lib/kubelet/pods/${second.metadata?.uid}/volumes/kvol.io~sim-disk/${pvName}/db/rows`;
    assert.equal(await readText(host, path), "row 1\n", "the second pod reads what the first wrote");

    await cluster.delete("Pod", "default", "second");
    assert.equal(await runChecked(cluster, checker, { forMs: leftoverGraceMs + minuteMs }), undefined);
    assert.equal(ledgerOf(cluster).size, 1, "the bytes stay owed while the claim is bound");
    await cluster.delete("PersistentVolumeClaim", "default", "data");
    const reclaimed = async () => (await cluster.tryGet("PersistentVolume", "", pvName)) === undefined;
    assert.equal(await runChecked(cluster, checker, { until: reclaimed, forMs: 2 * minuteMs }), undefined);
    assert.equal(await checker.check(), undefined);
    assert.equal(ledgerOf(cluster).size, 0, "a deleted claim's bytes are no longer owed");
    checker.stop();
  });
});

describe("InvariantChecker and the invariants the code asserts", () => {
  const startCluster = clusterPerTest();

  it("reports a violation the code threw, even one an operation caught, at its instant and with its key", async () => {
    const cluster = await startCluster({ seed: 21 });
    const checker = new InvariantChecker(cluster);
    await cluster.runFor(1_500);
    try {
      invariant(false, 'volume "kvol.io/sim-disk/disk-1" on node "node-a"', "in volumesByNode, but not attached");
    } catch (error) {
      // An operation reports such a throw as its own failure; the checker hears of it anyway.
      assert.ok(error instanceof InvariantViolation);
    }
    const report = await checker.check();
    assert.equal(report?.atMs, cluster.clock.now());
    assert.deepEqual(report?.violations, [
      {
        invariant: "asserted-in-code",
        message:
          'invariant violated for volume "kvol.io/sim-disk/disk-1" on node "node-a": in volumesByNode, but not attached',
        objects: ['volume "kvol.io/sim-disk/disk-1" on node "node-a"'],
      },
    ]);
    assert.equal(await checker.check(), undefined, "each violation is reported once");
    checker.stop();
  });
});
