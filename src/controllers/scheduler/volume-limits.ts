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

export class VolumeLimits {
  constructor(
    private readonly view: VolumeLimitsView,
    /** Makes the placeholder handles of unbound claims unlike any real handle (upstream's randomVolumeIDPrefix). */
    private readonly unboundHandlePrefix: string,
  ) {}

  /** The Filter verdict for `pod` on the node: no reasons, or Kubernetes' one. */
  reasons(pod: Pod, nodeName: string): readonly string[] {
    if (!usesClaims(pod)) return none;
    const counts = this.driverCounts(pod, nodeName);
    return counts.some((count) => count.attached + count.added > count.limit)
      ? [errReasonMaxVolumeCountExceeded]
      : none;
  }

  /** Each limited driver the pod would add volumes of, with the node's count; empty when nothing is limited. */
  driverCounts(pod: Pod, nodeName: string): DriverVolumeCount[] {
    const newVolumes: VolumesByDriver = new Map();
    this.addAttachableVolumes(pod, newVolumes);
    if (newVolumes.size === 0) return [];
    const limits = nodeVolumeLimits(this.view.csiNode(nodeName));
    // Only limited drivers can refuse the pod: without one among its volumes, nothing to count.
    if (![...newVolumes.values()].some((driver) => limits.has(driver))) return [];
    const attachedVolumes: VolumesByDriver = new Map();
    for (const existing of this.view.podsOnNode(nodeName)) {
      if (existing.metadata?.uid !== pod.metadata?.uid) this.addAttachableVolumes(existing, attachedVolumes);
    }
    const attached = new Map<string, number>();
    const countAttached = (driver: string) => attached.set(driver, (attached.get(driver) ?? 0) + 1);
    for (const [unique, driver] of attachedVolumes) {
      newVolumes.delete(unique);
      countAttached(driver);
    }
    for (const [unique, driver] of this.attachedByVolumeAttachments(nodeName)) {
      if (!attachedVolumes.has(unique)) countAttached(driver);
    }
    const added = new Map<string, number>();
    for (const driver of newVolumes.values()) added.set(driver, (added.get(driver) ?? 0) + 1);
    const counts: DriverVolumeCount[] = [];
    for (const [driver, count] of [...added].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const limit = limits.get(driver);
      if (limit !== undefined) counts.push({ driver, attached: attached.get(driver) ?? 0, added: count, limit });
    }
    return counts;
  }

  /** The pod's volumes that count against a driver's limit: `<driver>/<handle>` → driver. */
  attachableVolumes(pod: Pod): ReadonlyMap<string, string> {
    const volumes: VolumesByDriver = new Map();
    this.addAttachableVolumes(pod, volumes);
    return volumes;
  }

  /** The node's VolumeAttachments of CSI volumes: `<driver>/<handle>` → driver. */
  attachedVolumes(nodeName: string): ReadonlyMap<string, string> {
    return this.attachedByVolumeAttachments(nodeName);
  }

  /** filterAttachableVolumes: the pod's claims that name a CSI driver, by unique volume name. */
  private addAttachableVolumes(pod: Pod, result: VolumesByDriver): void {
    const namespace = pod.metadata?.namespace ?? "";
    for (const claimName of claimNames(pod)) {
      // A claim that is gone is not counted (the new pod's claims were checked by VolumeBinding's PreFilter).
      const claim = this.view.claim(namespace, claimName);
      if (claim === undefined) continue;
      const info = this.driverAndHandle(claim);
      if (info !== undefined) result.set(`${info.driver}/${info.handle}`, info.driver);
    }
  }

  /** getCSIDriverInfo: the PV's CSI driver and handle, or for a claim without one, its class's provisioner. */
  private driverAndHandle(claim: PersistentVolumeClaim): { driver: string; handle: string } | undefined {
    const volumeName = claim.spec?.volumeName;
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
  private attachedByVolumeAttachments(nodeName: string): VolumesByDriver {
    const result: VolumesByDriver = new Map();
    for (const attachment of this.view.attachmentsOnNode(nodeName)) {
      const attacher = attachment.spec?.attacher ?? "";
      const volumeName = attachment.spec?.source?.persistentVolumeName;
      if (attacher === "" || !volumeName) continue;
      const csi = this.view.volume(volumeName)?.spec?.csi;
      if (csi !== undefined) result.set(`${attacher}/${csi.volumeHandle}`, attacher);
    }
    return result;
  }
}
