/**
 * Invariant `single-writer`: storage that may be used by one node only (see `rwo-single-attach`)
 * never has two writers at once. A writer is a powered-on node — reachable from the API server or
 * not, its kubelet running or not — with a read-write mount of the disk or RBD image whose I/O the
 * storage still accepts: the device is still there, the node is not fenced at the disk provider,
 * and its RBD client is not blocklisted. A node cut off from the API server but still running keeps
 * writing through such a mount, so this is the check that automatic failover needs: the volume may
 * move only once the old node's writes fail (node fencing, docs/fencing.md).
 *
 * The data ledger (`data-ledger.ts`) follows the bytes a scenario wrote; it cannot see a second
 * writer, because the bytes a fenced or stale node would write never reach it. This invariant looks
 * at what each node could write now.
 */
import type { Cluster } from "../../cmd/cluster.ts";
import type { MountEntry } from "../../host/sim/mount-table.ts";
import type { SimHost } from "../../host/sim/sim-host.ts";
import { ClusterView } from "./cluster-view.ts";
import type { Invariant, Violation } from "./invariant.ts";
import { singleNodeReason } from "./rwo-single-attach.ts";
import { identityOfMount, mountObjectName, runningNodes } from "./world-storage.ts";

const name = "single-writer";

/** Whether a write through this mount of a disk or RBD image would reach the storage now. */
function writesReachStorage(cluster: Cluster, nodeName: string, host: SimHost, entry: MountEntry): boolean {
  const device = entry.superblock.device;
  if (device === undefined || device.gone || device.readOnly) return false;
  if (entry.options[0] === "ro" || entry.superblock.superOptions[0] === "ro") return false;
  if (device.kind === "disk") return !cluster.world.isStorageFenced(nodeName);
  if (device.kind === "rbd") {
    const client = host.rbdClient();
    return client !== undefined && !cluster.world.rbd.isFenced(client);
  }
  return false;
}

export const singleWriter: Invariant = {
  name,
  description:
    "A volume that allows one node only never has two writers: no two powered-on nodes (reachable or not) hold a read-write mount of the same disk or RBD image whose writes the storage still accepts.",
  check(cluster) {
    /** Storage key → node → one of its writable mounts (for the report). */
    const writers = new Map<string, Map<string, string>>();
    for (const { name: nodeName, host } of runningNodes(cluster.world)) {
      for (const entry of host.mountEntries()) {
        const key = identityOfMount(entry)?.key;
        if (key === undefined || !writesReachStorage(cluster, nodeName, host, entry)) continue;
        const nodes = writers.get(key) ?? new Map<string, string>();
        if (!nodes.has(nodeName)) nodes.set(nodeName, mountObjectName(nodeName, entry.mountPoint));
        writers.set(key, nodes);
      }
    }
    const violations: Violation[] = [];
    let view: ClusterView | undefined;
    for (const [key, nodes] of writers) {
      if (nodes.size < 2) continue;
      view ??= ClusterView.of(cluster);
      const reason = singleNodeReason(cluster, view, key);
      if (reason === undefined) continue;
      const nodeList = [...nodes.keys()];
      violations.push({
        invariant: name,
        message: `${key} has ${nodeList.length} writers (${nodeList.join(", ")}): each has it mounted read-write and the storage accepts its writes, but ${reason.why}`,
        objects: [key, ...reason.objects, ...nodes.values()],
      });
    }
    return violations;
  },
};
