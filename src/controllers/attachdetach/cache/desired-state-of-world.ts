/**
 * The attach/detach controller's desired state of the world (spec §2.2): which attachable volumes
 * should be attached to which managed nodes, and which scheduled pods want each of them.
 *
 *   nodesManaged[node] → { keepTerminatedPodVolumes, volumesToAttach[volume] → { spec,
 *                          multiAttachErrorReported, scheduledPods[podUID] → pod } }
 *
 * Only managed nodes (annotation `volumes.kubernetes.io/controller-managed-attach-detach`) are
 * tracked. Every change is signalled to the `onChange` listeners (the reconciler wakes).
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { invariant } from "../../../runtime/assert.ts";
import { ChangeSignalledCache } from "../../../runtime/change-signal.ts";
import { SmallMap } from "../../../runtime/small-map.ts";
import type { VolumeToAttach } from "../../../volume/operationexecutor/types.ts";
import type { VolumeSpec } from "../../../volume/spec.ts";

interface DesiredVolume {
  /** What the reconciler gets; rebuilt when the entry changes, so a pass allocates nothing per volume. */
  view: VolumeToAttach;
  /** podUID → pod, in the order pods were added. */
  scheduledPods: Map<string, Pod>;
}

function viewOf(
  volumeName: string,
  spec: VolumeSpec,
  nodeName: string,
  pods: Map<string, Pod>,
  reported: boolean,
): VolumeToAttach {
  return {
    volumeName,
    volumeSpec: spec,
    nodeName,
    scheduledPods: [...pods.values()],
    multiAttachErrorReported: reported,
  };
}

interface ManagedNode {
  keepTerminatedPodVolumes: boolean;
  volumesToAttach: Map<string, DesiredVolume>;
}

/** A (pod, volume, node) the populator checks against the informer. */
interface PodToAdd {
  podUID: string;
  pod: Pod;
  volumeName: string;
  nodeName: string;
}

export class DesiredStateOfWorld extends ChangeSignalledCache {
  private readonly nodes = new Map<string, ManagedNode>();
  private readonly wantedListeners: ((volumeName: string, nodeName: string) => void)[] = [];
  /** Counts the changes of `volumeExists`' answers. */
  private wantedChanges = 0;

  /**
   * Calls `listener` when a (volume, node) becomes wanted or stops being wanted, before the
   * `onChange` listeners hear of it (the actual state keeps its unwanted attachments with it).
   */
  onWantedChange(listener: (volumeName: string, nodeName: string) => void): void {
    this.wantedListeners.push(listener);
  }

  /** A number that changes whenever `volumeExists` may answer differently for some pair. */
  wantedVersion(): number {
    return this.wantedChanges;
  }

  private wantedChanged(volumeName: string, nodeName: string): void {
    this.wantedChanges++;
    for (const listener of this.wantedListeners) listener(volumeName, nodeName);
    this.changed();
  }

  /** Starts managing `nodeName`; idempotent: an existing node keeps its volumes (only the flag is updated). */
  addNode(nodeName: string, keepTerminatedPodVolumes: boolean): void {
    const existing = this.nodes.get(nodeName);
    if (existing !== undefined) {
      existing.keepTerminatedPodVolumes = keepTerminatedPodVolumes;
      return;
    }
    this.nodes.set(nodeName, { keepTerminatedPodVolumes, volumesToAttach: new Map() });
    this.changed();
  }

  /**
   * Stops managing a node (a no-op for an unmanaged one). Throws Kubernetes' error, changing
   * nothing, while volumes are still desired on it.
   */
  deleteNode(nodeName: string): void {
    const node = this.nodes.get(nodeName);
    if (node === undefined) return;
    if (node.volumesToAttach.size > 0) {
      throw new Error(
        `failed to delete node "${nodeName}" from list of nodes managed by attach/detach controller: it has ${node.volumesToAttach.size} volumes associated with it`,
      );
    }
    this.nodes.delete(nodeName);
    this.changed();
  }

  /** Never throws. */
  nodeExists(nodeName: string): boolean {
    return this.nodes.has(nodeName);
  }

  /** Never throws: false for an unmanaged node. */
  keepTerminatedPodVolumesForNode(nodeName: string): boolean {
    return this.nodes.get(nodeName)?.keepTerminatedPodVolumes ?? false;
  }

  /**
   * Records that `pod` wants `volumeName` on `nodeName` (idempotent; the newest pod object is kept).
   * Throws Kubernetes' error, changing nothing, when the node is not managed.
   */
  addPod(podUID: string, pod: Pod, volumeName: string, spec: VolumeSpec, nodeName: string): void {
    const node = this.nodes.get(nodeName);
    if (node === undefined) {
      throw new Error(`no node with the name "${nodeName}" exists in the list of managed nodes`);
    }
    let volume = node.volumesToAttach.get(volumeName);
    const added = volume === undefined;
    if (volume === undefined) {
      volume = { view: viewOf(volumeName, spec, nodeName, new Map(), false), scheduledPods: new SmallMap() };
      node.volumesToAttach.set(volumeName, volume);
    }
    // The newest pod object is kept: messages and events use it.
    if (volume.scheduledPods.get(podUID) !== pod) {
      volume.scheduledPods.set(podUID, pod);
      this.refresh(volume);
    }
    if (added) this.wantedChanged(volumeName, nodeName);
  }

  /** Views are replaced, never changed, so an operation holding the old one keeps a consistent copy. */
  private refresh(volume: DesiredVolume, multiAttachErrorReported = volume.view.multiAttachErrorReported): void {
    const { volumeName, volumeSpec, nodeName } = volume.view;
    // An entry no pod wants must be gone, not kept with an empty list (the reconciler would attach it).
    invariant(
      volume.scheduledPods.size > 0,
      `volume "${volumeName}" on node "${nodeName}"`,
      "desired with no scheduled pod",
    );
    volume.view = viewOf(volumeName, volumeSpec, nodeName, volume.scheduledPods, multiAttachErrorReported);
  }

  /** Forgets that the pod wants the volume; the volume goes once no pod wants it. A no-op for an unknown entry. */
  deletePod(podUID: string, volumeName: string, nodeName: string): void {
    const node = this.nodes.get(nodeName);
    const volume = node?.volumesToAttach.get(volumeName);
    if (node === undefined || volume === undefined || !volume.scheduledPods.delete(podUID)) return;
    if (volume.scheduledPods.size > 0) {
      this.refresh(volume);
      return;
    }
    node.volumesToAttach.delete(volumeName);
    this.wantedChanged(volumeName, nodeName);
  }

  /** Never throws, as none of the queries below: an unknown node, volume or pod reads as absent. */
  volumeExists(volumeName: string, nodeName: string): boolean {
    return this.nodes.get(nodeName)?.volumesToAttach.has(volumeName) ?? false;
  }

  /** Marks the Multi-Attach events as emitted for this (volume, node): they are emitted once. A no-op for an unknown entry. */
  setMultiAttachError(volumeName: string, nodeName: string): void {
    const volume = this.nodes.get(nodeName)?.volumesToAttach.get(volumeName);
    if (volume !== undefined) this.refresh(volume, true);
  }

  /** Every (volume, node) to attach, with its scheduled pods. */
  getVolumesToAttach(): VolumeToAttach[] {
    const volumes: VolumeToAttach[] = [];
    for (const node of this.nodes.values()) {
      for (const volume of node.volumesToAttach.values()) volumes.push(volume.view);
    }
    return volumes;
  }

  /** Every (pod, volume, node) entry, for the populator. */
  getPodsToAdd(): PodToAdd[] {
    const entries: PodToAdd[] = [];
    for (const [nodeName, node] of this.nodes) {
      for (const volume of node.volumesToAttach.values()) {
        for (const [podUID, pod] of volume.scheduledPods) {
          entries.push({ podUID, pod, volumeName: volume.view.volumeName, nodeName });
        }
      }
    }
    return entries;
  }

  /** The pods on `nodeNames` that want `volumeName` (who blocks a Multi-Attach). */
  getVolumePodsOnNodes(nodeNames: readonly string[], volumeName: string): Pod[] {
    const pods: Pod[] = [];
    for (const nodeName of nodeNames) {
      const volume = this.nodes.get(nodeName)?.volumesToAttach.get(volumeName);
      if (volume !== undefined) pods.push(...volume.scheduledPods.values());
    }
    return pods;
  }
}
