/**
 * The attach/detach controller's actual state of the world (spec §2.3): which volumes are
 * attached — confirmed or uncertain — to which nodes, whether each node still uses them
 * (`node.status.volumesInUse`), when a detach was first wanted, and what each node's
 * `status.volumesAttached` should say.
 *
 *   attachedVolumes[vol] → { spec (unknown after a restart), devicePath,
 *                            nodesAttachedTo[node] → { attachedConfirmed, mountedByNode, detachRequestedTime } }
 *   nodesToUpdateStatusFor[node] → { statusUpdateNeeded, volumesToReportAsAttached }
 *
 * A (volume, node) absent from the map is Detached. New entries start "mounted by node" — assume
 * in use until the node says otherwise. A per-node index keeps node-status updates O(volumes on
 * the node). Every change that can affect a decision calls `onChange` (wakes the reconciler).
 */
import type { AttachedVolume as NodeAttachedVolume } from "kubernetes-types/core/v1.js";
import type { Clock } from "../../../runtime/clock.ts";
import type { ActualStateOfWorldAttacherUpdater, AttachedVolume } from "../../../volume/operationexecutor/types.ts";
import type { VolumeSpec } from "../../../volume/spec.ts";

export type AttachState = "Attached" | "Uncertain" | "Detached";

interface NodeAttachment {
  attachedConfirmed: boolean;
  mountedByNode: boolean;
  /** Epoch ms of the first detach attempt; 0 when none is pending. */
  detachRequestedTimeMs: number;
}

interface AttachedVolumeState {
  spec: VolumeSpec | undefined;
  devicePath: string;
  nodesAttachedTo: Map<string, NodeAttachment>;
}

interface NodeStatusReport {
  statusUpdateNeeded: boolean;
  volumesToReportAsAttached: Set<string>;
}

/** One (volume, node) of the ASW as the reconciler sees it. */
export interface AttachedVolumeOnNode extends AttachedVolume {
  mountedByNode: boolean;
  attachState: Exclude<AttachState, "Detached">;
}

export class ActualStateOfWorld implements ActualStateOfWorldAttacherUpdater {
  private readonly attachedVolumes = new Map<string, AttachedVolumeState>();
  /** node → volumes attached (confirmed or uncertain) to it. */
  private readonly volumesByNode = new Map<string, Set<string>>();
  private readonly nodesToUpdateStatusFor = new Map<string, NodeStatusReport>();

  constructor(
    private readonly clock: Clock,
    private readonly onChange: () => void = () => undefined,
  ) {}

  markVolumeAsAttached(volumeName: string, spec: VolumeSpec | undefined, nodeName: string, devicePath: string): void {
    this.addVolumeNode(volumeName, spec, nodeName, devicePath, true);
  }

  markVolumeAsUncertain(volumeName: string, spec: VolumeSpec | undefined, nodeName: string): void {
    const devicePath = this.attachedVolumes.get(volumeName)?.devicePath ?? "";
    this.addVolumeNode(volumeName, spec, nodeName, devicePath, false);
    this.removeFromReport(volumeName, nodeName);
  }

  markVolumeAsDetached(volumeName: string, nodeName: string): void {
    const volume = this.attachedVolumes.get(volumeName);
    if (volume?.nodesAttachedTo.delete(nodeName)) {
      if (volume.nodesAttachedTo.size === 0) this.attachedVolumes.delete(volumeName);
      const onNode = this.volumesByNode.get(nodeName);
      onNode?.delete(volumeName);
      if (onNode?.size === 0) this.volumesByNode.delete(nodeName);
    }
    this.removeFromReport(volumeName, nodeName);
    this.onChange();
  }

  /** Stops reporting the volume in the node's status; throws when the node has no report. */
  removeVolumeFromReportAsAttached(volumeName: string, nodeName: string): void {
    if (!this.nodesToUpdateStatusFor.has(nodeName)) {
      throw new Error(
        `volume "${volumeName}" does not exist in volumesToReportAsAttached list or node "${nodeName}" does not exist in nodesToUpdateStatusFor list`,
      );
    }
    this.removeFromReport(volumeName, nodeName);
  }

  /** Reports the volume again, if it is still attached to the node. */
  addVolumeToReportAsAttached(volumeName: string, nodeName: string): void {
    if (this.attachedVolumes.get(volumeName)?.nodesAttachedTo.has(nodeName) !== true) return;
    let report = this.nodesToUpdateStatusFor.get(nodeName);
    if (report === undefined) {
      report = { statusUpdateNeeded: true, volumesToReportAsAttached: new Set() };
      this.nodesToUpdateStatusFor.set(nodeName, report);
    }
    if (report.volumesToReportAsAttached.has(volumeName)) return;
    report.volumesToReportAsAttached.add(volumeName);
    report.statusUpdateNeeded = true;
    this.onChange();
  }

  /** Replaces what the node says it uses: attached volumes in `volumesInUse` are mounted, others not. */
  setVolumesMountedByNode(nodeName: string, volumesInUse: readonly string[]): void {
    const onNode = this.volumesByNode.get(nodeName);
    if (onNode === undefined) return;
    const inUse = new Set(volumesInUse);
    let changed = false;
    for (const volumeName of onNode) {
      const attachment = this.attachedVolumes.get(volumeName)?.nodesAttachedTo.get(nodeName);
      if (attachment === undefined) continue;
      const mounted = inUse.has(volumeName);
      changed ||= attachment.mountedByNode !== mounted;
      attachment.mountedByNode = mounted;
    }
    if (changed) this.onChange();
  }

  /** Stores "now" the first time a detach is wanted; returns how long ago that was (ms). */
  setDetachRequestTime(volumeName: string, nodeName: string): number {
    const attachment = this.attachment(volumeName, nodeName);
    if (attachment === undefined) {
      throw new Error(`failed to SetDetachRequestTime: volume "${volumeName}" is not attached to node "${nodeName}"`);
    }
    const nowMs = this.clock.now();
    if (attachment.detachRequestedTimeMs === 0) attachment.detachRequestedTimeMs = nowMs;
    return nowMs - attachment.detachRequestedTimeMs;
  }

  /** The volume is wanted on the node again: forget the pending detach. */
  resetDetachRequestTime(volumeName: string, nodeName: string): void {
    const attachment = this.attachment(volumeName, nodeName);
    if (attachment !== undefined) attachment.detachRequestedTimeMs = 0;
  }

  /**
   * The attach pass's common case in one lookup: if the volume is confirmed attached to the node,
   * forget any pending detach request and return true.
   */
  resetDetachRequestTimeIfAttached(volumeName: string, nodeName: string): boolean {
    const attachment = this.attachment(volumeName, nodeName);
    if (attachment?.attachedConfirmed !== true) return false;
    attachment.detachRequestedTimeMs = 0;
    return true;
  }

  getAttachState(volumeName: string, nodeName: string): AttachState {
    const attachment = this.attachment(volumeName, nodeName);
    if (attachment === undefined) return "Detached";
    return attachment.attachedConfirmed ? "Attached" : "Uncertain";
  }

  /** Confirmed and uncertain (volume, node) pairs: the detach pass's candidates. */
  getAttachedVolumes(): AttachedVolumeOnNode[] {
    return this.attachedVolumesWhere(() => true);
  }

  /** The attached (volume, node) pairs `wanted` accepts; only those are copied out. */
  attachedVolumesWhere(wanted: (volumeName: string, nodeName: string) => boolean): AttachedVolumeOnNode[] {
    const found: AttachedVolumeOnNode[] = [];
    for (const [volumeName, volume] of this.attachedVolumes) {
      for (const [nodeName, attachment] of volume.nodesAttachedTo) {
        if (!wanted(volumeName, nodeName)) continue;
        found.push({
          volumeName,
          volumeSpec: volume.spec,
          nodeName,
          devicePath: volume.devicePath,
          mountedByNode: attachment.mountedByNode,
          attachState: attachment.attachedConfirmed ? "Attached" : "Uncertain",
        });
      }
    }
    return found;
  }

  /** Confirmed attachments by node: what the periodic "still attached?" check verifies. */
  getAttachedVolumesPerNode(): Map<string, AttachedVolume[]> {
    const perNode = new Map<string, AttachedVolume[]>();
    for (const [nodeName, volumeNames] of this.volumesByNode) {
      const volumes: AttachedVolume[] = [];
      for (const volumeName of volumeNames) {
        const volume = this.attachedVolumes.get(volumeName);
        if (volume?.nodesAttachedTo.get(nodeName)?.attachedConfirmed !== true) continue;
        volumes.push({ volumeName, volumeSpec: volume.spec, nodeName, devicePath: volume.devicePath });
      }
      if (volumes.length > 0) perNode.set(nodeName, volumes);
    }
    return perNode;
  }

  /** Nodes the volume is confirmed attached to (uncertain ones do not block a Multi-Attach). */
  getNodesForAttachedVolume(volumeName: string): string[] {
    const volume = this.attachedVolumes.get(volumeName);
    if (volume === undefined) return [];
    return [...volume.nodesAttachedTo].filter(([, attachment]) => attachment.attachedConfirmed).map(([node]) => node);
  }

  /** The spec the ASW holds (undefined after a restart until a pod names the volume again). */
  volumeSpec(volumeName: string): VolumeSpec | undefined {
    return this.attachedVolumes.get(volumeName)?.spec;
  }

  /** Asks for the node's status to be written again (Node re-created); only nodes with a report. */
  setNodeStatusUpdateNeeded(nodeName: string): void {
    const report = this.nodesToUpdateStatusFor.get(nodeName);
    if (report === undefined || report.statusUpdateNeeded) return;
    report.statusUpdateNeeded = true;
    this.onChange();
  }

  /** Nodes whose status must be written. */
  nodesNeedingStatusUpdate(): string[] {
    return [...this.nodesToUpdateStatusFor].filter(([, report]) => report.statusUpdateNeeded).map(([node]) => node);
  }

  /**
   * If the node's status must be written: its `volumesAttached` (sorted by name), and the flag is
   * cleared — the caller writes it, and sets the flag again if the write fails.
   */
  takeVolumesToReportAttached(nodeName: string): NodeAttachedVolume[] | undefined {
    const report = this.nodesToUpdateStatusFor.get(nodeName);
    if (report === undefined || !report.statusUpdateNeeded) return undefined;
    report.statusUpdateNeeded = false;
    return [...report.volumesToReportAsAttached].sort().map((name) => ({
      name,
      devicePath: this.attachedVolumes.get(name)?.devicePath ?? "",
    }));
  }

  private attachment(volumeName: string, nodeName: string): NodeAttachment | undefined {
    return this.attachedVolumes.get(volumeName)?.nodesAttachedTo.get(nodeName);
  }

  private addVolumeNode(
    volumeName: string,
    spec: VolumeSpec | undefined,
    nodeName: string,
    devicePath: string,
    attached: boolean,
  ): void {
    let volume = this.attachedVolumes.get(volumeName);
    if (volume === undefined) {
      volume = { spec, devicePath, nodesAttachedTo: new Map() };
      this.attachedVolumes.set(volumeName, volume);
    } else {
      // Newer information replaces the volume's fields; a restart's unknown spec never erases a known one.
      volume.devicePath = devicePath;
      if (spec !== undefined) volume.spec = spec;
    }
    const attachment = volume.nodesAttachedTo.get(nodeName);
    if (attachment === undefined) {
      volume.nodesAttachedTo.set(nodeName, {
        attachedConfirmed: attached,
        mountedByNode: true,
        detachRequestedTimeMs: 0,
      });
      let onNode = this.volumesByNode.get(nodeName);
      if (onNode === undefined) {
        onNode = new Set();
        this.volumesByNode.set(nodeName, onNode);
      }
      onNode.add(volumeName);
    } else {
      attachment.attachedConfirmed = attached;
    }
    if (attached) this.addVolumeToReportAsAttached(volumeName, nodeName);
    this.onChange();
  }

  private removeFromReport(volumeName: string, nodeName: string): void {
    const report = this.nodesToUpdateStatusFor.get(nodeName);
    if (report === undefined || !report.volumesToReportAsAttached.delete(volumeName)) return;
    report.statusUpdateNeeded = true;
    this.onChange();
  }
}
