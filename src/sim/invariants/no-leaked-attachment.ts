/**
 * Invariant `no-leaked-attachment`: once no pod on a node uses a volume any more, the volume does
 * not stay attached there. Checked on both sides: the disk provider's attachments of a cloud disk
 * to the node (what the cloud bills and what blocks another node's attach), and VolumeAttachments
 * with `status.attached: true` (what a CSI driver's ControllerPublish left).
 *
 * An attachment is accounted for while a pod on the node that has not finished uses the storage
 * (a Terminating pod still does), while the node's kubelet still reports it in
 * `node.status.volumesInUse` (it has not unmounted yet — the attach/detach controller must wait, and
 * a mount left behind is `no-leftovers-after-teardown`'s to report), or while a filesystem on it is
 * still mounted on the node. A detach the storage refuses (the `disk-detach-error` fault) is not a
 * leak of kvol's. Detaching takes time, so what is unaccounted for becomes a leak only after the
 * same grace as a mount (one operation timed out, one backoff, two loops: 4 min 2.2 s by default),
 * counted while the node is powered on and Ready — the force rules take over for a node that is not.
 */
import type { Cluster } from "../../cmd/cluster.ts";
import { ClusterView, isNodeReady } from "./cluster-view.ts";
import { leftoverGraceMsFor } from "./constants.ts";
import { perCluster } from "./first-sightings.ts";
import type { Invariant, Violation } from "./invariant.ts";
import { formatVirtualTime } from "./object-history.ts";
import { identityOfPersistentVolume, storageKeyOfAttachedName } from "./storage-identity.ts";
import { identityOfMount } from "./world-storage.ts";

const name = "no-leaked-attachment";

/** An attachment that may outlive its pods. */
interface Candidate {
  readonly key: string;
  readonly what: string;
  readonly object: string;
  readonly nodeName: string;
  /** The storage keys (`disk/d-1`, `PersistentVolume/pv-1`) it attaches. */
  readonly storage: readonly string[];
  /** The storage refuses the detach, for a reason outside kvol. */
  readonly blocked: boolean;
}

/** Candidate key → when it was first seen unaccounted for (reset while its node is not Ready). */
const unaccountedSince = perCluster<Cluster, Map<string, number>>(() => new Map());

function diskCandidates(cluster: Cluster): Candidate[] {
  const candidates: Candidate[] = [];
  for (const disk of cluster.world.disks.list()) {
    for (const attachment of disk.attachments.values()) {
      candidates.push({
        key: `disk#${disk.id}#${attachment.nodeName}`,
        what: `disk ${disk.id} (${attachment.state} in the disk provider)`,
        object: `disk/${disk.id}`,
        nodeName: attachment.nodeName,
        storage: [`disk/${disk.id}`],
        blocked: disk.faults.detachError !== undefined,
      });
    }
  }
  return candidates;
}

function volumeAttachmentCandidates(view: ClusterView): Candidate[] {
  const candidates: Candidate[] = [];
  for (const attachment of view.volumeAttachments.lister.list()) {
    const pvName = attachment.spec?.source?.persistentVolumeName;
    const nodeName = attachment.spec?.nodeName;
    if (attachment.status?.attached !== true || !pvName || !nodeName) continue;
    const pv = view.persistentVolume(pvName);
    const identityKey = pv === undefined ? undefined : identityOfPersistentVolume(pv)?.key;
    const vaName = attachment.metadata?.name ?? "";
    candidates.push({
      key: `va#${vaName}`,
      what: `VolumeAttachment ${vaName} of PersistentVolume ${pvName}`,
      object: `VolumeAttachment/${vaName}`,
      nodeName,
      storage: [`PersistentVolume/${pvName}`, ...(identityKey === undefined ? [] : [identityKey])],
      blocked: false,
    });
  }
  return candidates;
}

/** The storage keys the node still accounts for: its live pods' volumes, volumesInUse, its mounts. */
function accountedStorage(cluster: Cluster, view: ClusterView, nodeName: string): Set<string> {
  const keys = new Set<string>();
  for (const pod of view.podsOn(nodeName)) {
    const phase = pod.status?.phase;
    if (phase === "Succeeded" || phase === "Failed") continue;
    for (const storage of view.storageOf(pod)) {
      if (storage.pv?.metadata?.name) keys.add(`PersistentVolume/${storage.pv.metadata.name}`);
      if (storage.identity !== undefined) keys.add(storage.identity.key);
    }
  }
  for (const inUse of view.node(nodeName)?.status?.volumesInUse ?? []) {
    const key = storageKeyOfAttachedName(inUse);
    if (key !== undefined) keys.add(key);
  }
  for (const entry of cluster.world.node(nodeName).mountEntries()) {
    const key = identityOfMount(entry)?.key;
    if (key !== undefined) keys.add(key);
  }
  return keys;
}

/** Whether the node can have its volumes detached in the ordinary way now. */
function nodeIsUp(cluster: Cluster, view: ClusterView, nodeName: string): boolean {
  return (
    cluster.world.nodeNames().includes(nodeName) &&
    cluster.world.node(nodeName).poweredOn &&
    isNodeReady(view.node(nodeName))
  );
}

export const noLeakedAttachment: Invariant = {
  name,
  description:
    "Once no pod on a node uses a volume, is mounted from it or reports it in use, the volume does not stay attached there (disk provider, VolumeAttachments) longer than the teardown grace (4 min 2.2 s by default).",
  check(cluster) {
    const view = ClusterView.of(cluster);
    const graceMs = leftoverGraceMsFor(cluster.timers);
    const nowMs = cluster.clock.now();
    const previous = unaccountedSince(cluster);
    const current = new Map<string, number>();
    const accountedByNode = new Map<string, Set<string>>();
    const violations: Violation[] = [];
    for (const candidate of [...diskCandidates(cluster), ...volumeAttachmentCandidates(view)]) {
      if (candidate.blocked || !nodeIsUp(cluster, view, candidate.nodeName)) continue;
      const accounted = accountedByNode.get(candidate.nodeName) ?? accountedStorage(cluster, view, candidate.nodeName);
      accountedByNode.set(candidate.nodeName, accounted);
      if (candidate.storage.some((key) => accounted.has(key))) continue;
      const sinceMs = previous.get(candidate.key) ?? nowMs;
      current.set(candidate.key, sinceMs);
      if (nowMs - sinceMs < graceMs) continue;
      violations.push({
        invariant: name,
        message: `${candidate.what} stays attached to ${candidate.nodeName}: no pod on the node has used it, mounted it or reported it in use since ${formatVirtualTime(sinceMs)}, longer than the ${graceMs} ms teardown grace`,
        objects: [candidate.object, `Node/${candidate.nodeName}`],
      });
    }
    previous.clear();
    for (const [key, sinceMs] of current) previous.set(key, sinceMs);
    return violations;
  },
};
