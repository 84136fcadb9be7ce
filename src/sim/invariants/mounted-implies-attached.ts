/**
 * Invariant `mounted-implies-attached`: nothing is mounted that is not attached. A filesystem on a
 * cloud disk or RBD image may be mounted on a node only while that storage is attached there:
 * - in the world: the disk provider holds an attachment of the disk to the node (an RBD mapping is
 *   its own attachment, so an RBD device being there is enough);
 * - in the control plane, for the kubelet's mounts (under its root directory) on nodes whose
 *   attach/detach is controller-managed: the attach/detach controller reports the volume in
 *   `node.status.volumesAttached`, and a CSI volume whose driver requires attach has an attached
 *   VolumeAttachment for the node — the kubelet must not mount before either says so.
 * The attach/detach controller may take a volume away from a mount it cannot unmount when its force
 * rules apply (the node is not Ready, or carries the out-of-service taint; spec §2.7): a gap that
 * arose while they applied is allowed for as long as the mount stays. A mount whose device already
 * vanished is `no-detach-while-mounted`'s business, not this one's.
 */
import type { CSIDriver, Node, Pod } from "../../api/objects.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import type { MountEntry } from "../../host/sim/mount-table.ts";
import type { SimHost } from "../../host/sim/sim-host.ts";
import { csiPluginName, escapeQualifiedName, podsDir } from "../../volume/paths.ts";
import { ClusterView, forceDetachMayApply } from "./cluster-view.ts";
import { kubeletRootDir } from "./constants.ts";
import { FirstSightings, perCluster } from "./first-sightings.ts";
import type { Invariant, Violation } from "./invariant.ts";
import { storageKeyOfAttachedName } from "./storage-identity.ts";
import { identityOfMount, isAttachedStorageMount, mountObjectName, runningNodes } from "./world-storage.ts";

const name = "mounted-implies-attached";
const controllerManagedAnnotation = "volumes.kubernetes.io/controller-managed-attach-detach";
const kubeletRootPrefix = `${kubeletRootDir}/`;
/** `pods/<uid>/volumes/kubernetes.io~csi/<pv name>/mount`: a CSI NodePublish target. */
const csiPublishPattern = new RegExp(
  `^${escapeRegExp(podsDir(kubeletRootDir))}/[^/]+/volumes/${escapeRegExp(escapeQualifiedName(csiPluginName))}/([^/]+)/mount$`,
);

const csiPodVolumesDirName = `/${escapeQualifiedName(csiPluginName)}/`;

const sightings = perCluster<Cluster, FirstSightings>(() => new FirstSightings());

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

interface NodeContext {
  readonly cluster: Cluster;
  readonly view: ClusterView;
  readonly nodeName: string;
  readonly host: SimHost;
  readonly node: Node | undefined;
}

/** What is missing for this mount, or undefined when it is attached everywhere it must be. */
function missingAttachment(context: NodeContext, entry: MountEntry): string | undefined {
  const device = entry.superblock.device;
  if (isAttachedStorageMount(entry) && device !== undefined && !device.gone) {
    const worldGap = worldGapOf(context, entry);
    if (worldGap !== undefined) return worldGap;
  }
  if (!entry.mountPoint.startsWith(kubeletRootPrefix)) return undefined;
  if (context.node?.metadata?.annotations?.[controllerManagedAnnotation] !== "true") return undefined;
  return statusGapOf(context, entry) ?? attachmentGapOf(context, entry);
}

function worldGapOf(context: NodeContext, entry: MountEntry): string | undefined {
  const key = identityOfMount(entry)?.key;
  if (key === undefined || !key.startsWith("disk/")) return undefined;
  const diskId = key.slice("disk/".length);
  const disks = context.cluster.world.disks;
  const attachment = disks.has(diskId) ? disks.disk(diskId).attachments.get(context.nodeName) : undefined;
  if (attachment !== undefined && attachment.state !== "attaching") return undefined;
  return `the disk provider has ${key} ${attachment === undefined ? "not attached" : "still attaching"} to ${context.nodeName}`;
}

function statusGapOf(context: NodeContext, entry: MountEntry): string | undefined {
  if (!isAttachedStorageMount(entry)) return undefined;
  const identity = identityOfMount(entry);
  if (identity?.attachedName === undefined) return undefined;
  // Compared by storage, not by name: a disk may be attached by the in-tree plugin or through CSI.
  const reported = context.node?.status?.volumesAttached?.some(
    (volume) => storageKeyOfAttachedName(volume.name) === identity.key,
  );
  return reported
    ? undefined
    : `node.status.volumesAttached of ${context.nodeName} does not list ${identity.attachedName}`;
}

function attachmentGapOf(context: NodeContext, entry: MountEntry): string | undefined {
  if (!entry.mountPoint.includes(csiPodVolumesDirName)) return undefined;
  const pvName = csiPublishPattern.exec(entry.mountPoint)?.[1];
  const pv = pvName === undefined ? undefined : context.view.persistentVolume(pvName);
  const driver = pv?.spec?.csi?.driver;
  if (pvName === undefined || driver === undefined || !attachRequired(context.cluster, driver)) return undefined;
  const attached = context.view
    .attachmentsOf(pvName)
    .some((attachment) => attachment.spec?.nodeName === context.nodeName && attachment.status?.attached === true);
  return attached ? undefined : `no attached VolumeAttachment of PersistentVolume ${pvName} to ${context.nodeName}`;
}

/** CSIDriver.spec.attachRequired, true when the CSIDriver object is missing (spec §2.11). */
function attachRequired(cluster: Cluster, driver: string): boolean {
  const object: CSIDriver | undefined = cluster.informers.informerFor("CSIDriver").lister.get("", driver);
  return object?.spec?.attachRequired !== false;
}

function checkNode(context: NodeContext, seen: FirstSightings): Violation[] {
  const violations: Violation[] = [];
  const forceRulesApply = forceDetachMayApply(context.node);
  for (const entry of context.host.mountEntries()) {
    const missing = missingAttachment(context, entry);
    if (missing === undefined) continue;
    const key = `${context.nodeName}#${context.host.bootCount}#${entry.id}#${missing}`;
    if (seen.allowed(key, forceRulesApply)) continue;
    violations.push({
      invariant: name,
      message: `${entry.mountPoint} on ${context.nodeName} is mounted from ${entry.superblock.source}, but ${missing}`,
      objects: [
        mountObjectName(context.nodeName, entry.mountPoint),
        ...(identityOfMount(entry) === undefined ? [] : [identityOfMount(entry)?.key ?? ""]),
        `Node/${context.nodeName}`,
        ...podsUsing(context, entry),
      ],
    });
  }
  return violations;
}

/** The pod whose directory holds the mount, when it is a pod's. */
function podsUsing(context: NodeContext, entry: MountEntry): string[] {
  const prefix = `${podsDir(kubeletRootDir)}/`;
  if (!entry.mountPoint.startsWith(prefix)) return [];
  const uid = entry.mountPoint.slice(prefix.length).split("/")[0];
  const pod: Pod | undefined = context.view
    .podsOn(context.nodeName)
    .find((candidate) => candidate.metadata?.uid === uid);
  return pod === undefined ? [] : [`Pod/${pod.metadata?.namespace}/${pod.metadata?.name}`];
}

export const mountedImpliesAttached: Invariant = {
  name,
  description:
    "A filesystem on a cloud disk or RBD image is mounted on a node only while that storage is attached there, in the world and in node status (or a VolumeAttachment for CSI), except after a force detach of a not-Ready or out-of-service node.",
  check(cluster) {
    const view = ClusterView.of(cluster);
    const seen = sightings(cluster);
    seen.beginRound();
    const violations: Violation[] = [];
    for (const { name: nodeName, host } of runningNodes(cluster.world)) {
      violations.push(...checkNode({ cluster, view, nodeName, host, node: view.node(nodeName) }, seen));
    }
    seen.endRound();
    return violations;
  },
};
