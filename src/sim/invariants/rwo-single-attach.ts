/**
 * Invariant `rwo-single-attach`: a volume that may be used by one node only is never attached
 * read-write to two nodes at once. Checked against the world's truth — a cloud disk's read-write
 * attachments in the provider, the read-write block devices of disks and RBD images that running
 * nodes actually have (a fenced RBD client cannot write, so its mapping does not count) — and
 * against the control plane's belief — `node.status.volumesAttached` (what the attach/detach
 * controller reports) and attached VolumeAttachments — so a controller that skips its multi-attach
 * check is caught even when the storage itself happens to refuse the second attach.
 *
 * "One node only": a disk that does not allow multi-attach, or storage named by a PV whose access
 * modes forbid multi-attach (ReadWriteOnce / ReadWriteOncePod without ReadWriteMany or ReadOnlyMany).
 */
import type { Cluster } from "../../cmd/cluster.ts";
import { apiObjectName, ClusterView } from "./cluster-view.ts";
import type { Invariant, Violation } from "./invariant.ts";
import { identityOfPersistentVolume, isSingleNodeVolume, storageKeyOfAttachedName } from "./storage-identity.ts";
import { identityOfDevice, runningNodes } from "./world-storage.ts";

const name = "rwo-single-attach";

/** Storage key → the nodes that have it read-write, in the order found. */
type HoldersByStorage = Map<string, Set<string>>;

function addHolder(holders: HoldersByStorage, storageKey: string, nodeName: string): void {
  const nodes = holders.get(storageKey) ?? new Set<string>();
  nodes.add(nodeName);
  holders.set(storageKey, nodes);
}

/** Read-write attachments the provider holds, plus the read-write devices running nodes see. */
function worldHolders(cluster: Cluster): HoldersByStorage {
  const holders: HoldersByStorage = new Map();
  for (const disk of cluster.world.disks.list()) {
    for (const attachment of disk.attachments.values()) {
      if (!attachment.readOnly && attachment.state !== "attaching")
        addHolder(holders, `disk/${disk.id}`, attachment.nodeName);
    }
  }
  for (const { name: nodeName, host } of runningNodes(cluster.world)) {
    const client = host.rbdClient();
    const fenced = client !== undefined && cluster.world.rbd.isFenced(client);
    for (const device of host.blockDevices()) {
      if (device.readOnly || device.gone || (device.kind === "rbd" && fenced)) continue;
      const key = identityOfDevice(device)?.key;
      if (key !== undefined) addHolder(holders, key, nodeName);
    }
  }
  return holders;
}

function statusHolders(view: ClusterView): HoldersByStorage {
  const holders: HoldersByStorage = new Map();
  for (const node of view.nodes.lister.list()) {
    for (const attached of node.status?.volumesAttached ?? []) {
      const key = storageKeyOfAttachedName(attached.name);
      if (key !== undefined) addHolder(holders, key, node.metadata?.name ?? "");
    }
  }
  return holders;
}

/**
 * Whether a VolumeAttachment being deleted still holds its storage: its `attached: true` lingers
 * until the external-attacher's ControllerUnpublish call returns success, which a slow or
 * contended detach may delay after the storage itself has let go. For a cloud disk the world
 * says whether it has; other storage is taken at the VolumeAttachment's word.
 */
function deletedAttachmentStillHolds(cluster: Cluster, view: ClusterView, pvName: string, nodeName: string): boolean {
  const pv = view.persistentVolume(pvName);
  const key = pv === undefined ? undefined : identityOfPersistentVolume(pv)?.key;
  if (key === undefined || !key.startsWith("disk/")) return true;
  const diskId = key.slice("disk/".length);
  return cluster.world.disks.has(diskId) && cluster.world.disks.disk(diskId).attachments.has(nodeName);
}

function attachmentHolders(cluster: Cluster, view: ClusterView): HoldersByStorage {
  const holders: HoldersByStorage = new Map();
  for (const attachment of view.volumeAttachments.lister.list()) {
    const pvName = attachment.spec?.source?.persistentVolumeName;
    const nodeName = attachment.spec?.nodeName;
    if (attachment.status?.attached !== true || !pvName || !nodeName) continue;
    const deleting = attachment.metadata?.deletionTimestamp !== undefined;
    if (deleting && !deletedAttachmentStillHolds(cluster, view, pvName, nodeName)) continue;
    addHolder(holders, `PersistentVolume/${pvName}`, nodeName);
  }
  return holders;
}

/** Why the storage must stay on one node, or undefined when several are allowed. */
export function singleNodeReason(
  cluster: Cluster,
  view: ClusterView,
  storageKey: string,
): { why: string; objects: string[] } | undefined {
  const pvs = storageKey.startsWith("PersistentVolume/")
    ? [view.persistentVolume(storageKey.slice("PersistentVolume/".length))].filter((pv) => pv !== undefined)
    : view.persistentVolumesOf(storageKey);
  const single = pvs.filter(isSingleNodeVolume);
  if (single.length > 0) {
    const modes = single[0]?.spec?.accessModes?.join(", ") ?? "";
    return {
      why: `its PersistentVolume allows ${modes} only`,
      objects: single.map((pv) => apiObjectName("PersistentVolume", pv)),
    };
  }
  const diskId = storageKey.startsWith("disk/") ? storageKey.slice("disk/".length) : undefined;
  if (diskId !== undefined && cluster.world.disks.has(diskId) && !cluster.world.disks.disk(diskId).multiAttach) {
    return { why: "the disk does not allow multi-attach", objects: [] };
  }
  return undefined;
}

function violationsOf(cluster: Cluster, view: ClusterView, holders: HoldersByStorage, according: string): Violation[] {
  const violations: Violation[] = [];
  for (const [storageKey, nodes] of holders) {
    if (nodes.size < 2) continue;
    const reason = singleNodeReason(cluster, view, storageKey);
    if (reason === undefined) continue;
    const nodeList = [...nodes];
    violations.push({
      invariant: name,
      message: `${storageKey} is attached read-write to ${nodeList.length} nodes (${nodeList.join(", ")}) ${according}, but ${reason.why}`,
      objects: [storageKey, ...reason.objects, ...nodeList.map((node) => `Node/${node}`)],
    });
  }
  return violations;
}

export const rwoSingleAttach: Invariant = {
  name,
  description:
    "A volume that allows one node only (ReadWriteOnce, or a disk without multi-attach) is never attached read-write to two nodes: not in the storage world, not in node status, not in VolumeAttachments.",
  check(cluster) {
    const view = ClusterView.of(cluster);
    return [
      ...violationsOf(cluster, view, worldHolders(cluster), "in the simulated world"),
      ...violationsOf(cluster, view, statusHolders(view), "according to node.status.volumesAttached"),
      ...violationsOf(cluster, view, attachmentHolders(cluster, view), "according to VolumeAttachments"),
    ];
  },
};
