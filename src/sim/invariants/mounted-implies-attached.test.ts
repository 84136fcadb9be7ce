import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../cmd/cluster.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { InvariantChecker } from "./checker.ts";
import { mountedImpliesAttached } from "./mounted-implies-attached.ts";

const gibibyte = 2 ** 30;
const minuteMs = 60_000;
const devicePath = "/dev/disk/by-id/virtio-disk-1";
const globalMount = "/var/lib/kubelet/plugins/kvol.io/sim-disk/mounts/disk-1";

async function run(cluster: Cluster, command: string, args: string[], nodeName = "node-a"): Promise<void> {
  const result = await cluster.world.node(nodeName).run(command, args);
  assert.equal(result.exitCode, 0, `${command} ${args.join(" ")}: ${result.output}`);
}

/** node-a (a machine with the test heartbeat, no kubelet), its attach/detach managed by the controller, and disk-1. */
async function nodeAndDisk(cluster: Cluster): Promise<void> {
  await cluster.addNode("node-a", { agent: "heartbeat", zone: "zone-1" });
  await cluster.client.nodes.mutate("", "node-a", (draft) => {
    draft.metadata = {
      ...draft.metadata,
      annotations: { ...draft.metadata?.annotations, "volumes.kubernetes.io/controller-managed-attach-detach": "true" },
    };
  });
  cluster.world.disks.createDisk("disk-1", gibibyte, { zone: "zone-1" });
}

async function mountDisk(cluster: Cluster, target: string): Promise<void> {
  await cluster.world.node("node-a").mkdir(target, 0o750, { recursive: true });
  await run(cluster, "mkfs.ext4", ["-F", devicePath]);
  await run(cluster, "mount", [devicePath, target]);
}

describe("mounted-implies-attached", () => {
  const startClusterWith = clusterPerTest();
  const startCluster = () => startClusterWith({ controllers: [] });

  it("catches a filesystem mounted from a disk the provider never attached to the node", async () => {
    const cluster = await startCluster();
    await nodeAndDisk(cluster);
    const checker = new InvariantChecker(cluster, [mountedImpliesAttached]);
    // The device shows up without an attachment, as if a broken provider plugged it.
    cluster.world.node("node-a").plugDisk(cluster.world.disks.disk("disk-1"), false);
    await mountDisk(cluster, "/mnt/data");
    const report = await checker.check();
    assert.deepEqual(
      report?.violations.map((violation) => [violation.message, violation.objects]),
      [
        [
          "/mnt/data on node-a is mounted from /dev/sdb, but the disk provider has disk/disk-1 not attached to node-a",
          ["node/node-a:/mnt/data", "disk/disk-1", "Node/node-a"],
        ],
      ],
    );
  });

  it("catches a kubelet mount of a disk that node status does not report attached", async () => {
    const cluster = await startCluster();
    await nodeAndDisk(cluster);
    const attached = cluster.world.disks.attach("disk-1", "node-a");
    await cluster.runFor(minuteMs);
    await attached;
    const checker = new InvariantChecker(cluster, [mountedImpliesAttached]);
    await mountDisk(cluster, globalMount);
    const report = await checker.check();
    assert.equal(
      report?.violations[0]?.message,
      `${globalMount} on node-a is mounted from /dev/sdb, but node.status.volumesAttached of node-a does not list kvol.io/sim-disk/disk-1`,
    );
    assert.ok(
      report?.history.some((line) => line.endsWith(`node/node-a: mounted ${globalMount} (ext4 from /dev/sdb)`)),
    );

    await cluster.client.nodes.mutate(
      "",
      "node-a",
      (draft) => {
        draft.status = { ...draft.status, volumesAttached: [{ name: "kvol.io/sim-disk/disk-1", devicePath }] };
      },
      { subresource: "status" },
    );
    await cluster.runFor(1_000);
    assert.equal(await checker.check(), undefined, "reported attached: fine");
  });

  it("allows a gap that began while the node was not Ready, for as long as that mount stays", async () => {
    const cluster = await startCluster();
    await nodeAndDisk(cluster);
    const attached = cluster.world.disks.attach("disk-1", "node-a");
    await cluster.runFor(minuteMs);
    await attached;
    const checker = new InvariantChecker(cluster, [mountedImpliesAttached]);
    await cluster.client.nodes.mutate(
      "",
      "node-a",
      (draft) => {
        draft.status = {
          ...draft.status,
          conditions: (draft.status?.conditions ?? []).map((condition) =>
            condition.type === "Ready" ? { ...condition, status: "Unknown" } : condition,
          ),
        };
      },
      { subresource: "status" },
    );
    cluster.stopHeartbeat("node-a");
    await cluster.runFor(1_000);
    await mountDisk(cluster, globalMount);
    assert.equal(await checker.check(), undefined, "not Ready: the force rules may have taken the volume away");
    cluster.startHeartbeat("node-a");
    await cluster.runFor(30_000);
    assert.equal(await checker.check(), undefined, "still the same stale mount");
    await run(cluster, "umount", [globalMount]);
    await run(cluster, "mount", [devicePath, globalMount]);
    assert.match((await checker.check())?.violations[0]?.message ?? "", /does not list kvol.io\/sim-disk\/disk-1$/);
  });
});
