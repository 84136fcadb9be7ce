/**
 * Invariant `no-detach-while-mounted`: storage is not taken away from under a mounted filesystem —
 * a cloud disk is not detached (nor starts detaching) from a node, and an RBD image is not unmapped,
 * while a filesystem on it is mounted there — except by the attach/detach controller's documented
 * force rules (spec §2.7, §8.4): the 6-minute maxWaitForUnmountDuration force detach, which only
 * acts on a node that is not Ready, and the out-of-service taint. So a detach under a mount on a
 * healthy, untainted node is a violation; one that began while the node was not Ready or tainted is
 * allowed for as long as the stale mount stays (its kubelet cleans it up when it comes back).
 *
 * The force rule's 6-minute timer is the attach/detach controller's own business (its tests check
 * it); this invariant guards the safety side: no healthy node loses a mounted volume.
 */

import type { Cluster } from "../../cmd/cluster.ts";
import type { MountEntry } from "../../host/sim/mount-table.ts";
import { ClusterView, forceDetachMayApply } from "./cluster-view.ts";
import { FirstSightings, perCluster } from "./first-sightings.ts";
import type { Invariant, Violation } from "./invariant.ts";
import { identityOfMount, isAttachedStorageMount, mountObjectName, runningNodes } from "./world-storage.ts";

const name = "no-detach-while-mounted";

const sightings = perCluster<Cluster, FirstSightings>(() => new FirstSightings());

/** How the storage is going away under the mount, or undefined while it is fine. */
function detachUnder(cluster: Cluster, nodeName: string, entry: MountEntry): string | undefined {
  const device = entry.superblock.device;
  if (device === undefined || !isAttachedStorageMount(entry)) return undefined;
  const what = device.kind === "rbd" ? "unmapped" : "detached";
  if (device.gone) return `its device ${device.path} was ${what} while the filesystem was mounted`;
  const key = identityOfMount(entry)?.key;
  if (key === undefined || !key.startsWith("disk/")) return undefined;
  const diskId = key.slice("disk/".length);
  const disks = cluster.world.disks;
  const state = disks.has(diskId) ? disks.disk(diskId).attachments.get(nodeName)?.state : undefined;
  return state === "detaching"
    ? `${key} is being detached from ${nodeName} while the filesystem is mounted`
    : undefined;
}

export const noDetachWhileMounted: Invariant = {
  name,
  description:
    "A disk is never detached (nor an RBD image unmapped) from a node while a filesystem on it is mounted there, except by the force rules: the 6-minute force detach of a not-Ready node and the out-of-service taint.",
  check(cluster) {
    const view = ClusterView.of(cluster);
    const seen = sightings(cluster);
    seen.beginRound();
    const violations: Violation[] = [];
    for (const { name: nodeName, host } of runningNodes(cluster.world)) {
      const node = view.node(nodeName);
      const forceRulesApply = forceDetachMayApply(node);
      for (const entry of host.mountEntries()) {
        const problem = detachUnder(cluster, nodeName, entry);
        if (problem === undefined) continue;
        const storageKey = identityOfMount(entry)?.key ?? entry.superblock.source;
        const key = `${nodeName}#${host.bootCount}#${storageKey}#${entry.superblock.device?.path}`;
        if (seen.allowed(key, forceRulesApply)) continue;
        violations.push({
          invariant: name,
          message: `${entry.mountPoint} on ${nodeName}: ${problem}, and this began while ${nodeName} was Ready without the out-of-service taint`,
          objects: [mountObjectName(nodeName, entry.mountPoint), storageKey, `Node/${nodeName}`],
        });
      }
    }
    seen.endRound();
    return violations;
  },
};
