/**
 * NodeVolumeLimits (kube-scheduler's CSILimits filter): a node takes a pod only if, for every CSI
 * driver, the volumes already on the node plus the pod's new ones stay within the driver's limit —
 * `CSINode.spec.drivers[].allocatable.count`, which the kubelet writes from the driver's NodeGetInfo
 * `max_volumes_per_node`. A driver without a count, or a node without a CSINode, has no limit.
 *
 * What counts, each volume once by `<driver>/<volume handle>`:
 * - the claims (and generic ephemeral volumes' claims) of the pods on the node and assumed onto it:
 *   a bound claim by its PV's CSI driver and handle; an unbound one by its class's provisioner and a
 *   placeholder handle (`<prefix>-<namespace>/<claim>`, the prefix drawn once so it matches no real handle);
 * - the node's VolumeAttachments of CSI PVs not already counted (attached, or still being detached,
 *   for pods that are gone).
 * A volume of the new pod that the node already has costs nothing (two pods sharing a claim).
 * The verdict is Kubernetes' "node(s) exceed max volume count".
 */
import type { CSINode, PersistentVolume, PersistentVolumeClaim, Pod, VolumeAttachment } from "../../api/objects.ts";
import { errReasonMaxVolumeCountExceeded } from "./constants.ts";
import { DependencyCache } from "./dependency-cache.ts";

export interface VolumeLimitsView {
  csiNode(nodeName: string): CSINode | undefined;
  /** The pods bound to the node and those assumed onto it whose binding is in flight. */
  podsOnNode(nodeName: string): readonly Pod[];
  attachmentsOnNode(nodeName: string): readonly VolumeAttachment[];
  claim(namespace: string, name: string): PersistentVolumeClaim | undefined;
  volume(name: string): PersistentVolume | undefined;
  storageClassProvisioner(name: string): string | undefined;
}

/** One driver's use of a node: how many volumes it has there, of how many it may have. */
export interface DriverVolumeCount {
  driver: string;
  attached: number;
  /** The pod's volumes that the node does not have yet. */
  added: number;
  limit: number;
}

const none: readonly string[] = [];

/** `<volume unique name>` → driver, the shape upstream counts with. */
type VolumesByDriver = Map<string, string>;

function claimNames(pod: Pod): string[] {
  const names: string[] = [];
  for (const volume of pod.spec?.volumes ?? []) {
    if (volume.persistentVolumeClaim) names.push(volume.persistentVolumeClaim.claimName);
    else if (volume.ephemeral) names.push(`${pod.metadata?.name ?? ""}-${volume.name}`);
  }
  return names;
}

/** PreFilter: a pod without claims or ephemeral volumes skips the filter. */
export function usesClaims(pod: Pod): boolean {
  return (pod.spec?.volumes ?? []).some((volume) => volume.persistentVolumeClaim || volume.ephemeral);
}

const noLimits: ReadonlyMap<string, number> = new Map();
/** Informer objects are frozen and replaced on change, so one entry per CSINode version is never stale. */
const limitsByCsiNode = new WeakMap<CSINode, ReadonlyMap<string, number>>();

/** getVolumeLimits: each driver's `allocatable.count`; a driver without one has no limit. */
export function nodeVolumeLimits(csiNode: CSINode | undefined): ReadonlyMap<string, number> {
  if (csiNode === undefined) return noLimits;
  const cached = limitsByCsiNode.get(csiNode);
  if (cached !== undefined) return cached;
  const limits = new Map<string, number>();
  for (const driver of csiNode.spec?.drivers ?? []) {
    const count = driver.allocatable?.count;
    if (count !== undefined) limits.set(driver.name, count);
  }
  if (Object.isFrozen(csiNode)) limitsByCsiNode.set(csiNode, limits);
  return limits;
}

/**
 * What one node holds, for every pod evaluated on it: computed once and kept (with `cached`) until
 * the node's pods or VolumeAttachments, or a claim, volume or class it read, change.
 */
interface NodeVolumes {
  /** The volumes of the pods on the node: `<driver>/<handle>` → driver. */
  podVolumes: VolumesByDriver;
  /** The uids of those pods: a pod evaluated on a node it is already counted on is counted apart. */
  podUids: ReadonlySet<string>;
  /** Per driver: the pods' volumes plus the VolumeAttachments' not among them. */
  attachedPerDriver: ReadonlyMap<string, number>;
}

interface VolumeLimitsOptions {
  /**
   * Keep each node's counts between pods. The owner must then report every change the view would
   * show through `nodeChanged`, `claimChanged`, `volumeChanged` and `storageClassChanged`.
   */
  cached?: boolean;
}

/** Records what a computation reads, for the cache; a no-op outside it. */
type ReadRecorder = (dependency: string) => void;

const recordNothing: ReadRecorder = () => {
  // Uncached: nothing to invalidate later.
};

export class VolumeLimits {
  private readonly nodes: DependencyCache<NodeVolumes> | undefined;
  /** The last pod's own volumes, valid until a claim, volume or class changes (`generation`). */
  private lastPod: { pod: Pod; generation: number; volumes: VolumesByDriver } | undefined;
  private generation = 0;

  constructor(
    private readonly view: VolumeLimitsView,
    /** Makes the placeholder handles of unbound claims unlike any real handle (upstream's randomVolumeIDPrefix). */
    private readonly unboundHandlePrefix: string,
    options: VolumeLimitsOptions = {},
  ) {
    this.nodes = options.cached ? new DependencyCache<NodeVolumes>() : undefined;
  }

  /** The pods bound or assumed onto the node, or its VolumeAttachments, changed. */
  nodeChanged(nodeName: string): void {
    this.nodes?.invalidate(nodeName);
  }

  /** The claim `<namespace>/<name>` was added, changed or deleted (in the informer or the assume cache). */
  claimChanged(key: string): void {
    this.generation++;
    this.nodes?.changed(claimDependency(key));
  }

  /** The PersistentVolume was added, changed or deleted (in the informer or the assume cache). */
  volumeChanged(name: string): void {
    this.generation++;
    this.nodes?.changed(volumeDependency(name));
  }

  /** A StorageClass changed: rare, so every node is recounted. */
  storageClassChanged(): void {
    this.generation++;
    this.nodes?.clear();
  }

  /** The Filter verdict for `pod` on the node: no reasons, or Kubernetes' one. */
  reasons(pod: Pod, nodeName: string): readonly string[] {
    // Cached, the pod's own volumes are worked out once per attempt, not per node: no need for the PreFilter shortcut.
    if (this.nodes === undefined && !usesClaims(pod)) return none;
    const counts = this.driverCounts(pod, nodeName);
    return counts.some((count) => count.attached + count.added > count.limit)
      ? [errReasonMaxVolumeCountExceeded]
      : none;
  }

  /** Each limited driver the pod would add volumes of, with the node's count; empty when nothing is limited. */
  driverCounts(pod: Pod, nodeName: string): DriverVolumeCount[] {
    const podVolumes = this.podVolumes(pod);
    if (podVolumes.size === 0) return [];
    const limits = nodeVolumeLimits(this.view.csiNode(nodeName));
    // Only limited drivers can refuse the pod: without one among its volumes, nothing to count.
    if (!anyLimited(podVolumes, limits)) return [];
    const onNode = this.nodeVolumes(nodeName, pod);
    const added = new Map<string, number>();
    for (const [unique, driver] of podVolumes) {
      if (!onNode.podVolumes.has(unique)) added.set(driver, (added.get(driver) ?? 0) + 1);
    }
    const counts: DriverVolumeCount[] = [];
    for (const [driver, count] of [...added].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const limit = limits.get(driver);
      const attached = onNode.attachedPerDriver.get(driver) ?? 0;
      if (limit !== undefined) counts.push({ driver, attached, added: count, limit });
    }
    return counts;
  }

  /** The pod's volumes that count against a driver's limit: `<driver>/<handle>` → driver. */
  attachableVolumes(pod: Pod): ReadonlyMap<string, string> {
    const volumes: VolumesByDriver = new Map();
    this.addAttachableVolumes(pod, volumes, recordNothing);
    return volumes;
  }

  /** The node's VolumeAttachments of CSI volumes: `<driver>/<handle>` → driver. */
  attachedVolumes(nodeName: string): ReadonlyMap<string, string> {
    return this.attachedByVolumeAttachments(nodeName, recordNothing);
  }

  /**
   * The pod's own volumes. A scheduling attempt asks for every node it evaluates; with `cached`,
   * the answer for the same (frozen) pod is reused until a claim, volume or class changes.
   */
  private podVolumes(pod: Pod): VolumesByDriver {
    const last = this.lastPod;
    if (this.nodes !== undefined && last?.pod === pod && last.generation === this.generation) return last.volumes;
    const volumes: VolumesByDriver = new Map();
    this.addAttachableVolumes(pod, volumes, recordNothing);
    if (this.nodes !== undefined && Object.isFrozen(pod)) {
      this.lastPod = { pod, generation: this.generation, volumes };
    }
    return volumes;
  }

  /**
   * The node's volumes without `pod`'s own: from the cache unless the pod is counted there (or has
   * no uid, which upstream's comparison treats as equal to every other pod without one).
   */
  private nodeVolumes(nodeName: string, pod: Pod): NodeVolumes {
    const uid = pod.metadata?.uid;
    if (this.nodes !== undefined && uid !== undefined) {
      const cached = this.nodes.get(nodeName, (read) => this.countNode(nodeName, undefined, read));
      if (!cached.podUids.has(uid)) return cached;
    }
    return this.countNode(nodeName, pod, recordNothing);
  }

  private countNode(nodeName: string, except: Pod | undefined, read: ReadRecorder): NodeVolumes {
    const podVolumes: VolumesByDriver = new Map();
    const podUids = new Set<string>();
    for (const existing of this.view.podsOnNode(nodeName)) {
      const uid = existing.metadata?.uid;
      if (except !== undefined && uid === except.metadata?.uid) continue;
      if (uid !== undefined) podUids.add(uid);
      this.addAttachableVolumes(existing, podVolumes, read);
    }
    const attachedPerDriver = new Map<string, number>();
    const countAttached = (driver: string) => attachedPerDriver.set(driver, (attachedPerDriver.get(driver) ?? 0) + 1);
    for (const driver of podVolumes.values()) countAttached(driver);
    for (const [unique, driver] of this.attachedByVolumeAttachments(nodeName, read)) {
      if (!podVolumes.has(unique)) countAttached(driver);
    }
    return { podVolumes, podUids, attachedPerDriver };
  }

  /** filterAttachableVolumes: the pod's claims that name a CSI driver, by unique volume name. */
  private addAttachableVolumes(pod: Pod, result: VolumesByDriver, read: ReadRecorder): void {
    const namespace = pod.metadata?.namespace ?? "";
    for (const claimName of claimNames(pod)) {
      read(claimDependency(`${namespace}/${claimName}`));
      // A claim that is gone is not counted (the new pod's claims were checked by VolumeBinding's PreFilter).
      const claim = this.view.claim(namespace, claimName);
      if (claim === undefined) continue;
      const info = this.driverAndHandle(claim, read);
      if (info !== undefined) result.set(`${info.driver}/${info.handle}`, info.driver);
    }
  }

  /** getCSIDriverInfo: the PV's CSI driver and handle, or for a claim without one, its class's provisioner. */
  private driverAndHandle(
    claim: PersistentVolumeClaim,
    read: ReadRecorder,
  ): { driver: string; handle: string } | undefined {
    const volumeName = claim.spec?.volumeName;
    if (volumeName) read(volumeDependency(volumeName));
    const volume = volumeName ? this.view.volume(volumeName) : undefined;
    if (volume !== undefined) {
      const csi = volume.spec?.csi;
      return csi === undefined ? undefined : { driver: csi.driver, handle: csi.volumeHandle };
    }
    // Unbound, or bound to a PV not seen yet: counted against the class's driver.
    const className = claim.spec?.storageClassName ?? "";
    if (className === "") return undefined;
    const provisioner = this.view.storageClassProvisioner(className);
    if (provisioner === undefined) return undefined;
    const handle = `${this.unboundHandlePrefix}-${claim.metadata?.namespace ?? ""}/${claim.metadata?.name ?? ""}`;
    return { driver: provisioner, handle };
  }

  /** getNodeVolumeAttachmentInfo: the CSI PVs the node's VolumeAttachments name. */
  private attachedByVolumeAttachments(nodeName: string, read: ReadRecorder): VolumesByDriver {
    const result: VolumesByDriver = new Map();
    for (const attachment of this.view.attachmentsOnNode(nodeName)) {
      const attacher = attachment.spec?.attacher ?? "";
      const volumeName = attachment.spec?.source?.persistentVolumeName;
      if (attacher === "" || !volumeName) continue;
      read(volumeDependency(volumeName));
      const csi = this.view.volume(volumeName)?.spec?.csi;
      if (csi !== undefined) result.set(`${attacher}/${csi.volumeHandle}`, attacher);
    }
    return result;
  }
}

function claimDependency(key: string): string {
  return `claim:${key}`;
}

function volumeDependency(name: string): string {
  return `volume:${name}`;
}

function anyLimited(volumes: VolumesByDriver, limits: ReadonlyMap<string, number>): boolean {
  for (const driver of volumes.values()) if (limits.has(driver)) return true;
  return false;
}
