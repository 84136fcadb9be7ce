import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fuseDriverName, mockDriverName } from "../../csi/drivers/common/constants.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { claimYaml, podUsingClaimYaml, podYaml, storageClassYaml } from "../testing/manifests.ts";
import { faultCatalogue, faultNamed } from "./catalogue.ts";
import { FaultArgs } from "./fault-args.ts";
import { secondMs, startDiskPod } from "./testing/fault-test-support.ts";

/** The faults issue 8 asks for, each under the name a user types. */
const requiredFaults = [
  "node-power-off",
  "node-crash",
  "node-partition",
  "kubelet-restart",
  "controller-manager-restart",
  "csi-node-plugin-restart",
  "mount-helper-missing",
  "fuse-daemon-killed",
  "nfs-server-down",
  "nfs-stale-handle",
  "mount-busy",
  "disk-attach-slow",
  "disk-attach-error",
  "disk-detach-slow",
  "disk-detach-error",
  "disk-expand-error",
  "csi-call-error",
  "csi-call-slow",
  "csi-deadline-exceeded",
  "disk-format-failure",
  "online-resize-denied",
  "snapshot-stuck-not-ready",
  "api-latency",
];

describe("fault catalogue", () => {
  const startCluster = clusterPerTest();

  it("has every fault, under a kebab-case name, each saying what it models and how Kubernetes reacts", () => {
    assert.deepEqual([...faultCatalogue.keys()].sort(), [...requiredFaults].sort());
    for (const [name, fault] of faultCatalogue) {
      assert.equal(fault.name, name);
      assert.match(name, /^[a-z]+(-[a-z]+)*$/);
      assert.ok(fault.models.length > 40, `${name}: models`);
      assert.ok(fault.kubernetesReaction.length > 80, `${name}: reaction`);
      assert.equal(fault.healing !== undefined, fault.heal !== undefined, `${name}: a heal is described iff it exists`);
      for (const param of fault.params) assert.ok(param.description.length > 0, `${name}.${param.name}`);
    }
  });

  it("answers an unknown name with the known ones", () => {
    assert.throws(() => faultNamed("node-poweroff"), {
      message: `unknown fault "node-poweroff"; known faults: ${[...faultCatalogue.keys()].join(", ")}`,
    });
    assert.equal(faultNamed("api-latency").name, "api-latency");
  });

  it("offers targets for every fault in a cluster that has something to hit, and each injects and heals", async () => {
    const cluster = await startCluster({ seed: 81, csiDrivers: [{ name: mockDriverName }, { name: fuseDriverName }] });
    cluster.world.addNfsServer("10.0.0.200").addExport("/exports/data");
    await cluster.addNode("node-a");
    await cluster.addNode("node-b");
    await cluster.apply(
      [
        storageClassYaml({ name: "fuse", provisioner: fuseDriverName, bindingMode: "Immediate" }),
        claimYaml("bucket", { storageClassName: "fuse" }),
        podUsingClaimYaml("reader", "bucket"),
        podYaml("nfs-app", "nfs: { server: 10.0.0.200, path: /exports/data }"),
      ].join("---\n"),
    );
    await startDiskPod(cluster);

    // Reboots and restarts go last: they end the FUSE daemons the fuse-daemon-killed fault needs.
    const restarts = new Set(["node-power-off", "node-crash", "kubelet-restart", "csi-node-plugin-restart"]);
    const faults = [...faultCatalogue.values()];
    const ordered = [...faults.filter((f) => !restarts.has(f.name)), ...faults.filter((f) => restarts.has(f.name))];
    for (const fault of ordered) {
      const targets = await fault.targets(cluster);
      assert.ok(targets.length > 0, `${fault.name} has a target`);
      for (const target of targets) new FaultArgs(fault, target);
      const [first = {}] = targets;
      await fault.inject(cluster, first);
      await cluster.runFor(10 * secondMs);
      await fault.heal?.(cluster, first);
      await cluster.runFor(10 * secondMs);
    }
    assert.equal(cluster.apiFaults.latencyMs, 0);
    for (const node of ["node-a", "node-b"]) {
      assert.equal(cluster.world.node(node).poweredOn, true, node);
      assert.equal(cluster.apiFaults.isPartitioned(node), false, node);
    }
  });
});
