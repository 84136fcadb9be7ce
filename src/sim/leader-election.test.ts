/**
 * Two control-plane replicas under leader election on virtual time (kube-controller-manager's
 * lease 15 s, renew deadline 10 s, retry 2 s): exactly one runs the controllers; the leader is
 * killed in the middle of an attach storm of CSI disks; the other takes over once the Lease
 * expired, rebuilds its state from the API, and every pod runs with no volume attached to two
 * nodes, every invariant holding at every step; then every detach happens and no VolumeAttachment
 * is left.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diskDriverName } from "../csi/drivers/common/constants.ts";
import { allInvariants } from "./invariants/catalogue.ts";
import { runChecked } from "./invariants/checked-run.ts";
import { InvariantChecker } from "./invariants/checker.ts";
import { clusterPerTest } from "./testing/clusters.ts";
import { isRunning } from "./testing/e2e.ts";
import { claimYaml, storageClassYaml } from "./testing/manifests.ts";

const SECOND = 1_000;
const MINUTE = 60_000;
const nodes = ["node-a", "node-b", "node-c"];
const podCount = 12;

function podYaml(index: number): string {
  return `
apiVersion: v1
kind: Pod
metadata: { name: web-${index} }
spec:
  nodeSelector: { kubernetes.io/hostname: ${nodes[index % nodes.length]} }
  containers: [{ name: app, image: busybox:1.36, volumeMounts: [{ name: data, mountPath: /data }] }]
  volumes: [{ name: data, persistentVolumeClaim: { claimName: data-${index} } }]
`;
}

describe("leader election of the control plane", () => {
  const startCluster = clusterPerTest();

  it("runs the controllers in exactly one replica; the other takes over a killed leader in an attach storm", async () => {
    const cluster = await startCluster({
      seed: 16,
      csiDrivers: [{ name: diskDriverName }],
      leaderElection: { identities: ["host-a_1", "host-b_2"] },
    });
    for (const node of nodes) await cluster.addNode(node);
    await cluster.runFor(3 * SECOND);
    const first = cluster.leaderIdentity();
    assert.equal(first, "host-a_1");
    const lease = await cluster.get("Lease", "kube-system", "kube-controller-manager");
    assert.equal(lease.spec?.holderIdentity, "host-a_1");
    assert.equal(lease.spec?.leaseDurationSeconds, 15);
    const names = cluster.controllers.map((controller) => controller.name);
    assert.ok(names.includes("attachdetach-controller"));
    assert.equal(new Set(names).size, names.length, "each controller runs once: only the leader runs them");

    const manifests: string[] = [storageClassYaml({ name: "disk", provisioner: diskDriverName })];
    for (let index = 0; index < podCount; index++) {
      manifests.push(claimYaml(`data-${index}`, { storageClassName: "disk" }), podYaml(index));
    }
    await cluster.apply(manifests.join("---\n"));
    const checker = new InvariantChecker(cluster, allInvariants);
    const attachedCount = async () =>
      (await cluster.list("VolumeAttachment")).filter((attachment) => attachment.status?.attached === true).length;
    // Kill the leader once some volumes are attached and others are still on their way.
    const before = await runChecked(cluster, checker, {
      forMs: 5 * MINUTE,
      until: async () => (await attachedCount()) >= 3,
      description: "three volumes attached",
    });
    assert.equal(before, undefined, JSON.stringify(before?.violations));
    assert.ok((await attachedCount()) < podCount, "the storm is still going on when the leader dies");
    const crashedAtMs = cluster.clock.now();
    cluster.crashControlPlane("host-a_1");

    const takeover = await runChecked(cluster, checker, {
      forMs: MINUTE,
      until: () => cluster.leaderIdentity() === "host-b_2",
      description: "host-b_2 leading",
    });
    assert.equal(takeover, undefined, JSON.stringify(takeover?.violations));
    const tookMs = cluster.clock.now() - crashedAtMs;
    // 15 s after host-b_2 last saw the Lease change, at one of its tries (2 s + up to 2.4 s apart).
    assert.ok(tookMs >= 15 * SECOND && tookMs <= 15 * SECOND + 2 * 4_400, `took over after ${tookMs} ms`);
    assert.equal((await cluster.get("Lease", "kube-system", "kube-controller-manager")).spec?.leaseTransitions, 1);

    const running = await runChecked(cluster, checker, {
      forMs: 10 * MINUTE,
      until: async () => (await cluster.list("Pod")).filter(isRunning).length === podCount,
      description: "every pod Running",
    });
    assert.equal(running, undefined, JSON.stringify(running?.violations));
    const attachments = await cluster.list("VolumeAttachment");
    assert.equal(attachments.length, podCount, "one VolumeAttachment per volume, none twice");
    assert.equal(new Set(attachments.map((attachment) => attachment.spec.source.persistentVolumeName)).size, podCount);

    for (let index = 0; index < podCount; index++) await cluster.delete("Pod", "default", `web-${index}`);
    const detached = await runChecked(cluster, checker, {
      forMs: 10 * MINUTE,
      until: async () => {
        const left = await cluster.list("VolumeAttachment");
        const reported = (await cluster.list("Node")).flatMap((node) => node.status?.volumesAttached ?? []);
        return left.length === 0 && reported.length === 0;
      },
      description: "every volume detached and no VolumeAttachment left",
    });
    assert.equal(detached, undefined, JSON.stringify(detached?.violations));
    checker.stop();
  });
});
