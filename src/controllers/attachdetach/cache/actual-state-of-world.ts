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
 * the node); the attachments no pod wants (as the injected `isWanted` says) are kept apart, so the
 * detach pass visits only those. Every change that can affect a decision is signalled to `onChange` listeners (the
 * reconciler wakes). Both indexes are checked as they change (runtime/assert.ts): a (volume, node) is
 * in `volumesByNode` exactly when it is in `attachedVolumes`, and a node's status only reports
 * volumes attached to it.
 */
import type { AttachedVolume as NodeAttachedVolume } from "kubernetes-types/core/v1.js";
import { invariant } from "../../../runtime/assert.ts";
import { ChangeSignalledCache } from "../../../runtime/change-signal.ts";
import type { Clock } from "../../../runtime/clock.ts";
import { SmallMap } from "../../../runtime/small-map.ts";
import type { ActualStateOfWorldAttacherUpdater, AttachedVolume } from "../../../volume/operationexecutor/types.ts";
import type { VolumeSpec } from "../../../volume/spec.ts";
import { type UnwantedAttachment, UnwantedAttachments } from "./unwanted-attachments.ts";

type AttachState = "Attached" | "Uncertain" | "Detached";

interface NodeAttachment {
  attachedConfirmed: boolean;
  mountedByNode: boolean;
  /** Epoch ms of the first detach attempt; 0 when none is pending. */
  detachRequestedTimeMs: number;
  /** Set once the pair is detached: a listed pair whose attachment still has it unset is still this one. */
  detached: boolean;
  /**
   * `attachedConfirmed` and `mountedByNode` as they were at listing number `savedForListing`, saved
   * by the first change after it (see `listAttachmentsNotWanted`).
   */
  savedForListing: number;
  listedConfirmed: boolean;
  listedMounted: boolean;
}

interface AttachedVolumeState {
  spec: VolumeSpec | undefined;
  devicePath: string;
  nodesAttachedTo: Map<string, NodeAttachment>;
  /** Where the volume stands in `attachedVolumes`' order (see unwanted-attachments.ts). */
  order: number;
  /** `spec` and `devicePath` as they were at listing number `savedForListing`, as for an attachment. */
  savedForListing: number;
  listedSpec: VolumeSpec | undefined;
  listedDevicePath: string;
}

/** One attached (volume, node) no pod wants, as `listAttachmentsNotWanted` lists it. */
export type ListedAttachment = UnwantedAttachment<AttachedVolumeState, NodeAttachment>;

interface NodeStatusReport {
  statusUpdateNeeded: boolean;
  volumesToReportAsAttached: Set<string>;
}

/** One (volume, node) of the ASW as the reconciler sees it. */
export interface AttachedVolumeOnNode extends AttachedVolume {
  mountedByNode: boolean;
  attachState: Exclude<AttachState, "Detached">;
}

export class ActualStateOfWorld extends ChangeSignalledCache implements ActualStateOfWorldAttacherUpdater {
  private readonly attachedVolumes = new Map<string, AttachedVolumeState>();
  /** node → volumes attached (confirmed or uncertain) to it. */
  private readonly volumesByNode = new Map<string, Set<string>>();
  private readonly nodesToUpdateStatusFor = new Map<string, NodeStatusReport>();
  /** The attachments `isWanted` refuses, in `attachedVolumes`' order. */
  private readonly unwanted = new UnwantedAttachments<AttachedVolumeState, NodeAttachment>();
  /** Hands out the volumes' `order`, increasing. */
  private nextOrder = 0;
  /** Counts the calls of `listAttachmentsNotWanted`: what a listed pair reads is kept as of the last one. */
  private listing = 0;

  /**
   * `isWanted` says whether a pod wants the volume on the node (the desired state); whoever owns
   * both states calls `wantedChanged` when its answer for a pair changes. It has no default: a state
   * that forgot the link would take every attachment as unwanted, and the reconciler would detach them.
   */
  constructor(
    private readonly clock: Clock,
    private readonly isWanted: (volumeName: string, nodeName: string) => boolean,
  ) {
    super();
  }

  /** The desired state now wants, or no longer wants, the volume on the node: re-asks `isWanted`. Never throws. */
  wantedChanged(volumeName: string, nodeName: string): void {
    const volume = this.attachedVolumes.get(volumeName);
    const attachment = volume?.nodesAttachedTo.get(nodeName);
    if (volume === undefined || attachment === undefined) return;
    if (this.isWanted(volumeName, nodeName)) this.unwanted.delete(attachment);
    else this.unwanted.add(volumeName, nodeName, volume, attachment);
  }

  /**
   * Records the (volume, node) as attached and reports it in the node's status (idempotent; newer
   * spec and device path win). Throws an InvariantViolation only if the indexes disagree.
   */
  markVolumeAsAttached(volumeName: string, spec: VolumeSpec | undefined, nodeName: string, devicePath: string): void {
    this.addVolumeNode(volumeName, spec, nodeName, devicePath, true);
  }

  /** Records the (volume, node) as maybe attached and stops reporting it; idempotent, throws as markVolumeAsAttached. */
  markVolumeAsUncertain(volumeName: string, spec: VolumeSpec | undefined, nodeName: string): void {
    const devicePath = this.attachedVolumes.get(volumeName)?.devicePath ?? "";
    this.addVolumeNode(volumeName, spec, nodeName, devicePath, false);
    this.removeFromReport(volumeName, nodeName);
  }

  /**
   * Forgets the (volume, node) and stops reporting it; idempotent (a detached pair is a no-op, but
   * listeners are still told). Throws an InvariantViolation only if the indexes disagree.
   */
  markVolumeAsDetached(volumeName: string, nodeName: string): void {
    const volume = this.attachedVolumes.get(volumeName);
    const onNode = this.volumesByNode.get(nodeName);
    const attachment = volume?.nodesAttachedTo.get(nodeName);
    const wasAttached = attachment !== undefined;
    // A node left with no volume has no set at all: a second detach of its last volume is a no-op.
    invariant((onNode?.has(volumeName) ?? false) === wasAttached, pairKey(volumeName, nodeName), () =>
      wasAttached ? "attached, but missing from volumesByNode" : "in volumesByNode, but not attached",
    );
    if (volume !== undefined && attachment !== undefined) {
      this.unwanted.delete(attachment);
      attachment.detached = true;
      volume.nodesAttachedTo.delete(nodeName);
      if (volume.nodesAttachedTo.size === 0) this.attachedVolumes.delete(volumeName);
      onNode?.delete(volumeName);
      if (onNode?.size === 0) this.volumesByNode.delete(nodeName);
    }
    this.removeFromReport(volumeName, nodeName);
    this.changed();
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

  /** Reports the volume again, if it is still attached to the node (a no-op otherwise; idempotent). */
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
    this.changed();
  }

  /**
   * Replaces what the node says it uses: attached volumes in `volumesInUse` are mounted, others not.
   * A no-op for a node with nothing attached; names of volumes not attached are ignored. Throws an
   * InvariantViolation if `volumesByNode` names a volume that is not attached to the node.
   */
  setVolumesMountedByNode(nodeName: string, volumesInUse: readonly string[]): void {
    const onNode = this.volumesByNode.get(nodeName);
    if (onNode === undefined) return;
    const inUse = new Set(volumesInUse);
    let changed = false;
    for (const volumeName of onNode) {
      const attachment = this.attachedVolumes.get(volumeName)?.nodesAttachedTo.get(nodeName);
      invariant(attachment !== undefined, pairKey(volumeName, nodeName), "in volumesByNode, but not attached");
      const mounted = inUse.has(volumeName);
      if (attachment.mountedByNode === mounted) continue;
      this.keepListed(attachment);
      attachment.mountedByNode = mounted;
      changed = true;
    }
    if (changed) this.changed();
  }

  /**
   * Stores "now" the first time a detach is wanted; returns how long ago that was (ms). Throws
   * (Kubernetes' error, changing nothing) when the volume is not attached to the node.
   */
  setDetachRequestTime(volumeName: string, nodeName: string): number {
    const attachment = this.attachment(volumeName, nodeName);
    if (attachment === undefined) {
      throw new Error(`failed to SetDetachRequestTime: volume "${volumeName}" is not attached to node "${nodeName}"`);
    }
    const nowMs = this.clock.now();
    if (attachment.detachRequestedTimeMs === 0) attachment.detachRequestedTimeMs = nowMs;
    return nowMs - attachment.detachRequestedTimeMs;
  }

  /**
   * How long ago the pending detach of an attached volume was first wanted (ms); undefined when the
   * volume is not attached to the node or no detach has been wanted yet. Reads only.
   */
  detachRequestedAgoMs(volumeName: string, nodeName: string): number | undefined {
    const attachment = this.attachment(volumeName, nodeName);
    if (attachment === undefined || attachment.detachRequestedTimeMs === 0) return undefined;
    return this.clock.now() - attachment.detachRequestedTimeMs;
  }

  /** The volume is wanted on the node again: forget the pending detach (a no-op when not attached). */
  resetDetachRequestTime(volumeName: string, nodeName: string): void {
    const attachment = this.attachment(volumeName, nodeName);
    if (attachment !== undefined) attachment.detachRequestedTimeMs = 0;
  }

  /**
   * The attach pass's common case in one lookup: if the volume is confirmed attached to the node,
   * forget any pending detach request and return true. Never throws.
   */
  resetDetachRequestTimeIfAttached(volumeName: string, nodeName: string): boolean {
    const attachment = this.attachment(volumeName, nodeName);
    if (attachment?.attachedConfirmed !== true) return false;
    attachment.detachRequestedTimeMs = 0;
    return true;
  }

  // Queries never throw (except takeVolumesToReportAttached on an inconsistent index).

  getAttachState(volumeName: string, nodeName: string): AttachState {
    const attachment = this.attachment(volumeName, nodeName);
    if (attachment === undefined) return "Detached";
    return attachment.attachedConfirmed ? "Attached" : "Uncertain";
  }

  /**
   * Every confirmed and uncertain (volume, node) pair, O(attachments): for the debug state, the
   * volumes metric and tests. The detach pass lists only its candidates (`listAttachmentsNotWanted`).
   */
  getAttachedVolumes(): AttachedVolumeOnNode[] {
    const found: AttachedVolumeOnNode[] = [];
    for (const [volumeName, volume] of this.attachedVolumes) {
      for (const [nodeName, attachment] of volume.nodesAttachedTo) {
        found.push(onNode(volumeName, volume, nodeName, attachment));
      }
    }
    return found;
  }

  /**
   * The attached (volume, node) pairs `isWanted` refuses, in the order `getAttachedVolumes` lists
   * them; O(pairs found), however many volumes are attached.
   */
  attachedVolumesNotWanted(): AttachedVolumeOnNode[] {
    return this.unwanted
      .entries()
      .map(({ volumeName, volume, nodeName, attachment }) => onNode(volumeName, volume, nodeName, attachment));
  }

  /**
   * The same pairs for a detach pass, which awaits between them while the state changes: a list
   * later changes do not alter, whose pairs `listedMountedByNode` and `listedAttachment` read as
   * they were now, until the next call. Nothing is copied: the first change to an attachment or
   * volume after the call keeps its old fields, so a pass over thousands of pairs waiting for their
   * unmount allocates nothing per pair.
   */
  listAttachmentsNotWanted(): readonly ListedAttachment[] {
    this.listing++;
    return this.unwanted.entries();
  }

  /** Whether the node reported the listed pair's volume in use when it was listed. */
  listedMountedByNode(pair: ListedAttachment): boolean {
    const { attachment } = pair;
    return attachment.savedForListing === this.listing ? attachment.listedMounted : attachment.mountedByNode;
  }

  /**
   * The listed pair as it was when listed: the reconciler's copy, as `attachedVolumesNotWanted` gives
   * it (`onNode` builds the same object from the fields as they are now).
   */
  listedAttachment(pair: ListedAttachment): AttachedVolumeOnNode {
    const { volumeName, nodeName, volume, attachment } = pair;
    const volumeListed = volume.savedForListing === this.listing;
    const confirmed =
      attachment.savedForListing === this.listing ? attachment.listedConfirmed : attachment.attachedConfirmed;
    return {
      volumeName,
      volumeSpec: volumeListed ? volume.listedSpec : volume.spec,
      nodeName,
      devicePath: volumeListed ? volume.listedDevicePath : volume.devicePath,
      mountedByNode: this.listedMountedByNode(pair),
      attachState: confirmed ? "Attached" : "Uncertain",
    };
  }

  /**
   * `detachRequestedAgoMs` of a listed pair as the state is now — unlike the `listed*` readers,
   * which answer as of the listing; without lookups while the pair is still attached.
   */
  currentDetachRequestedAgoMs(pair: ListedAttachment): number | undefined {
    const { attachment } = pair;
    if (attachment.detached) return this.detachRequestedAgoMs(pair.volumeName, pair.nodeName);
    if (attachment.detachRequestedTimeMs === 0) return undefined;
    return this.clock.now() - attachment.detachRequestedTimeMs;
  }

  /** When a detach of the (volume, node) was first wanted (epoch ms); 0 when none is pending or it is not attached. */
  detachRequestedTimeMs(volumeName: string, nodeName: string): number {
    return this.attachment(volumeName, nodeName)?.detachRequestedTimeMs ?? 0;
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

  /** Asks for the node's status to be written again (Node re-created); a no-op for a node without a report. */
  setNodeStatusUpdateNeeded(nodeName: string): void {
    const report = this.nodesToUpdateStatusFor.get(nodeName);
    if (report === undefined || report.statusUpdateNeeded) return;
    report.statusUpdateNeeded = true;
    this.changed();
  }

  /** Nodes whose status must be written. */
  nodesNeedingStatusUpdate(): string[] {
    const nodes: string[] = [];
    this.nodesToUpdateStatusFor.forEach((report, node) => {
      if (report.statusUpdateNeeded) nodes.push(node);
    });
    return nodes;
  }

  /** Whether any node's status must be written, without listing them (every reconciler pass asks). */
  anyNodeNeedsStatusUpdate(): boolean {
    for (const report of this.nodesToUpdateStatusFor.values()) if (report.statusUpdateNeeded) return true;
    return false;
  }

  /**
   * If the node's status must be written: its `volumesAttached` (sorted by name), and the flag is
   * cleared — the caller writes it, and sets the flag again if the write fails. Throws an
   * InvariantViolation, before clearing the flag, if the report names a volume not attached to the node.
   */
  takeVolumesToReportAttached(nodeName: string): NodeAttachedVolume[] | undefined {
    const report = this.nodesToUpdateStatusFor.get(nodeName);
    if (report === undefined || !report.statusUpdateNeeded) return undefined;
    const attached = [...report.volumesToReportAsAttached].sort().map((name) => {
      const volume = this.attachedVolumes.get(name);
      invariant(
        volume?.nodesAttachedTo.has(nodeName) === true,
        pairKey(name, nodeName),
        "reported in the node's volumesAttached, but not attached",
      );
      return { name, devicePath: volume.devicePath };
    });
    report.statusUpdateNeeded = false;
    return attached;
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
      volume = {
        spec,
        devicePath,
        nodesAttachedTo: new SmallMap(),
        order: this.nextOrder++,
        savedForListing: -1,
        listedSpec: undefined,
        listedDevicePath: "",
      };
      this.attachedVolumes.set(volumeName, volume);
    } else {
      this.keepListedVolume(volume);
      // Newer information replaces the volume's fields; a restart's unknown spec never erases a known one.
      volume.devicePath = devicePath;
      if (spec !== undefined) volume.spec = spec;
    }
    const attachment = volume.nodesAttachedTo.get(nodeName);
    const indexed = this.volumesByNode.get(nodeName)?.has(volumeName) === true;
    invariant(indexed === (attachment !== undefined), pairKey(volumeName, nodeName), () =>
      indexed ? "in volumesByNode, but not attached" : "attached, but missing from volumesByNode",
    );
    if (attachment === undefined) {
      const created: NodeAttachment = {
        attachedConfirmed: attached,
        mountedByNode: true,
        detachRequestedTimeMs: 0,
        detached: false,
        savedForListing: -1,
        listedConfirmed: false,
        listedMounted: false,
      };
      volume.nodesAttachedTo.set(nodeName, created);
      if (!this.isWanted(volumeName, nodeName)) this.unwanted.add(volumeName, nodeName, volume, created);
      let onNode = this.volumesByNode.get(nodeName);
      if (onNode === undefined) {
        onNode = new Set();
        this.volumesByNode.set(nodeName, onNode);
      }
      onNode.add(volumeName);
    } else {
      this.keepListed(attachment);
      attachment.attachedConfirmed = attached;
    }
    if (attached) this.addVolumeToReportAsAttached(volumeName, nodeName);
    this.changed();
  }

  /** Keeps the attachment's fields as the last listing saw them, before its first change since. */
  private keepListed(attachment: NodeAttachment): void {
    if (attachment.savedForListing === this.listing) return;
    attachment.savedForListing = this.listing;
    attachment.listedConfirmed = attachment.attachedConfirmed;
    attachment.listedMounted = attachment.mountedByNode;
  }

  private keepListedVolume(volume: AttachedVolumeState): void {
    if (volume.savedForListing === this.listing) return;
    volume.savedForListing = this.listing;
    volume.listedSpec = volume.spec;
    volume.listedDevicePath = volume.devicePath;
  }

  private removeFromReport(volumeName: string, nodeName: string): void {
    const report = this.nodesToUpdateStatusFor.get(nodeName);
    if (report === undefined || !report.volumesToReportAsAttached.delete(volumeName)) return;
    report.statusUpdateNeeded = true;
    this.changed();
  }
}

/** The reconciler's copy of one attachment: later changes to the state do not show in it. */
function onNode(
  volumeName: string,
  volume: AttachedVolumeState,
  nodeName: string,
  attachment: NodeAttachment,
): AttachedVolumeOnNode {
  return {
    volumeName,
    volumeSpec: volume.spec,
    nodeName,
    devicePath: volume.devicePath,
    mountedByNode: attachment.mountedByNode,
    attachState: attachment.attachedConfirmed ? "Attached" : "Uncertain",
  };
}

/** How an invariant failure names a (volume, node) of the controller's actual state (and its reconciler's). */
export function pairKey(volumeName: string, nodeName: string): string {
  return `volume "${volumeName}" on node "${nodeName}"`;
}
