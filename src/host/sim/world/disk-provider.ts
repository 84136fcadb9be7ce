/**
 * A cloud provider's attachable disks (the "simulated attachable disk" CSI drivers use): create,
 * attach to a node — the block device appears on that node after the attach latency — detach,
 * delete. A disk attached read-write to one node cannot be attached to a second unless it allows
 * multi-attach, which is the rule an RWO volume relies on. Latencies and errors can be injected per
 * disk. Attachments are the provider's truth: they survive a node's power-off, and the device
 * reappears when the node boots.
 */
import type { Clock } from "../../../runtime/clock.ts";
import { SmallMap } from "../../../runtime/small-map.ts";
import { BlockStorage } from "../block-storage.ts";
import { diskAttachLatencyDefaultMs, diskDetachLatencyDefaultMs } from "../sim-constants.ts";
import { copyStorage } from "../storage-copy.ts";

export type DiskErrorCode =
  | "NotFound"
  | "AlreadyExists"
  | "AttachedElsewhere"
  | "ZoneMismatch"
  | "StillAttached"
  | "NodeNotFound"
  | "Busy"
  | "TooSmall"
  | "NoSpace"
  | "Injected";

/**
 * A provider API error; `code` lets a CSI driver map it to a gRPC status. Most are ordinary answers
 * polled for (a disk still attached while it detaches), so it carries no stack trace.
 */
export class CloudDiskError extends Error {
  constructor(
    readonly code: DiskErrorCode,
    message: string,
  ) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "CloudDiskError";
  }
}

export interface DiskFaults {
  attachLatencyMs?: number;
  detachLatencyMs?: number;
  /** Every attach fails with this message (after the latency) until cleared. */
  attachError?: string;
  detachError?: string;
  /** Every resize fails with this message until cleared (a quota, a disk type that cannot grow). */
  expandError?: string;
}

type AttachmentState = "attaching" | "attached" | "detaching";

interface DiskAttachment {
  readonly nodeName: string;
  readonly readOnly: boolean;
  state: AttachmentState;
}

export interface CloudDisk {
  readonly id: string;
  /** Grows with expandDisk. */
  sizeBytes: number;
  readonly zone: string | undefined;
  readonly multiAttach: boolean;
  readonly storage: BlockStorage;
  readonly attachments: Map<string, DiskAttachment>;
  /** Replaced by setFaults, never changed in place: a disk without faults shares `noFaults`. */
  faults: Readonly<DiskFaults>;
}

/** A point-in-time copy of a disk, kept by the provider until deleted (a cloud's disk snapshot). */
export interface CloudSnapshot {
  readonly id: string;
  readonly sourceDiskId: string;
  readonly sizeBytes: number;
  readonly creationTimeMs: number;
  /** False while the provider is still uploading it (the `snapshot-not-ready` fault keeps it so). */
  readyToUse: boolean;
  readonly storage: BlockStorage;
}

/** What a new disk starts with: empty, a snapshot's content, or another disk's (a clone). */
export type DiskContentSource = { snapshotId: string } | { diskId: string };

interface CreateDiskOptions {
  zone?: string;
  /** Allow read-write attachment to several nodes at once (shared block storage). */
  multiAttach?: boolean;
  source?: DiskContentSource;
}

/** How the provider reaches the nodes: the world plugs devices into their kernels. */
interface DiskNodePort {
  /** The node's zone; throws CloudDiskError NodeNotFound for an unknown node. */
  zoneOf(nodeName: string): string | undefined;
  plug(nodeName: string, disk: CloudDisk, readOnly: boolean): void;
  unplug(nodeName: string, disk: CloudDisk): void;
}

/** Every fault-free disk's faults: one frozen object rather than one per disk. */
const noFaults: Readonly<DiskFaults> = Object.freeze({});

/** The stable device path a disk gets on every node it is attached to. */
export function diskDevicePath(diskId: string): string {
  return `/dev/disk/by-id/virtio-${diskId}`;
}

/**
 * The rule of a disk that is not multi-attach: attached to one node read-write, or to any number
 * read-only. Throws AttachedElsewhere naming the node it is on. Shared by every disk backend.
 */
export function checkExclusiveAttach(
  disk: {
    readonly id: string;
    readonly multiAttach: boolean;
    readonly attachments: ReadonlyMap<string, { readonly nodeName: string; readonly readOnly: boolean }>;
  },
  nodeName: string,
  readOnly: boolean,
): void {
  if (disk.multiAttach) return;
  for (const other of disk.attachments.values()) {
    if (other.readOnly && readOnly) continue;
    throw new CloudDiskError(
      "AttachedElsewhere",
      `disk ${disk.id} is attached to node ${other.nodeName}${other.readOnly ? " read-only" : ""}; ` +
        `it cannot also be attached ${readOnly ? "read-only" : "read-write"} to node ${nodeName} ` +
        "because it does not allow multi-attach: detach it first",
    );
  }
}

export class CloudDiskProvider {
  private readonly disks = new Map<string, CloudDisk>();
  private readonly snapshots = new Map<string, CloudSnapshot>();
  /** Snapshots taken while set stay not ready until it is cleared (a stuck upload). */
  snapshotsStuckNotReady = false;

  constructor(
    private readonly clock: Clock,
    private readonly nodes: DiskNodePort,
  ) {}

  createDisk(id: string, sizeBytes: number, options: CreateDiskOptions = {}): CloudDisk {
    if (this.disks.has(id)) throw new CloudDiskError("AlreadyExists", `disk ${id} already exists`);
    const disk: CloudDisk = {
      id,
      sizeBytes,
      zone: options.zone,
      multiAttach: options.multiAttach ?? false,
      storage: this.initialStorage(sizeBytes, options.source),
      // Nearly always none or one node: a SmallMap keeps that inline.
      attachments: new SmallMap(),
      faults: noFaults,
    };
    this.disks.set(id, disk);
    return disk;
  }

  private initialStorage(sizeBytes: number, source: DiskContentSource | undefined): BlockStorage {
    if (source === undefined) return new BlockStorage(sizeBytes);
    const from = "snapshotId" in source ? this.snapshot(source.snapshotId) : this.disk(source.diskId);
    if (from.sizeBytes > sizeBytes) {
      throw new CloudDiskError(
        "TooSmall",
        `a disk of ${sizeBytes} bytes cannot hold ${"snapshotId" in source ? "snapshot" : "disk"} ${from.id} of ${from.sizeBytes} bytes`,
      );
    }
    return copyStorage(from.storage, sizeBytes);
  }

  /** Copies a disk's content now; ready at once unless snapshots are stuck. */
  createSnapshot(id: string, sourceDiskId: string): CloudSnapshot {
    if (this.snapshots.has(id)) throw new CloudDiskError("AlreadyExists", `snapshot ${id} already exists`);
    const source = this.disk(sourceDiskId);
    const snapshot: CloudSnapshot = {
      id,
      sourceDiskId,
      sizeBytes: source.sizeBytes,
      creationTimeMs: this.clock.now(),
      readyToUse: !this.snapshotsStuckNotReady,
      storage: copyStorage(source.storage, source.sizeBytes),
    };
    this.snapshots.set(id, snapshot);
    return snapshot;
  }

  snapshot(id: string): CloudSnapshot {
    const snapshot = this.snapshots.get(id);
    if (snapshot === undefined) throw new CloudDiskError("NotFound", `snapshot ${id} not found`);
    if (!this.snapshotsStuckNotReady) snapshot.readyToUse = true;
    return snapshot;
  }

  hasSnapshot(id: string): boolean {
    return this.snapshots.has(id);
  }

  listSnapshots(): CloudSnapshot[] {
    return [...this.snapshots.keys()].map((id) => this.snapshot(id));
  }

  deleteSnapshot(id: string): void {
    this.snapshots.delete(id);
  }

  disk(id: string): CloudDisk {
    const disk = this.disks.get(id);
    if (disk === undefined) throw new CloudDiskError("NotFound", `disk ${id} not found`);
    return disk;
  }

  /** Every disk's id, in creation order. */
  ids(): string[] {
    return [...this.disks.keys()];
  }

  has(id: string): boolean {
    return this.disks.has(id);
  }

  /** Every disk, in creation order (for invariants that look at all attachments at once). */
  list(): CloudDisk[] {
    return [...this.disks.values()];
  }

  deleteDisk(id: string): void {
    const disk = this.disk(id);
    if (disk.attachments.size > 0) {
      const nodes = [...disk.attachments.keys()].join(", ");
      throw new CloudDiskError("StillAttached", `disk ${id} is still attached to ${nodes}; detach it before deleting`);
    }
    this.disks.delete(id);
  }

  /**
   * Grows the disk to `sizeBytes`, attached or not: the devices on the nodes it is attached to see
   * the new size at once (the filesystem on it does not grow until resize2fs). Never shrinks.
   */
  expandDisk(id: string, sizeBytes: number): CloudDisk {
    const disk = this.disk(id);
    if (disk.faults.expandError !== undefined) {
      throw new CloudDiskError(
        "Injected",
        `resizing disk ${id} to ${sizeBytes} bytes failed: ${disk.faults.expandError}`,
      );
    }
    if (sizeBytes <= disk.sizeBytes) return disk;
    disk.storage.grow(sizeBytes);
    disk.sizeBytes = sizeBytes;
    return disk;
  }

  setFaults(id: string, faults: DiskFaults): void {
    this.disk(id).faults = { ...faults };
  }

  /**
   * Attaches the disk; resolves with the device path once the device exists on the node. Attaching
   * to a node it is already attached to returns at once (the API is idempotent).
   */
  async attach(id: string, nodeName: string, options: { readOnly?: boolean } = {}): Promise<string> {
    const disk = this.disk(id);
    const readOnly = options.readOnly ?? false;
    const existing = disk.attachments.get(nodeName);
    if (existing?.state === "attached") return diskDevicePath(id);
    if (existing !== undefined) {
      throw new CloudDiskError("Busy", `disk ${id} is ${existing.state} on node ${nodeName}; retry when it settles`);
    }
    this.checkAttachable(disk, nodeName, readOnly);
    const attachment: DiskAttachment = { nodeName, readOnly, state: "attaching" };
    disk.attachments.set(nodeName, attachment);
    await this.wait(disk.faults.attachLatencyMs ?? diskAttachLatencyDefaultMs);
    if (disk.faults.attachError !== undefined) {
      disk.attachments.delete(nodeName);
      throw new CloudDiskError(
        "Injected",
        `attaching disk ${id} to node ${nodeName} failed: ${disk.faults.attachError}`,
      );
    }
    attachment.state = "attached";
    this.nodes.plug(nodeName, disk, readOnly);
    return diskDevicePath(id);
  }

  /** Detaches; the device vanishes from the node first (I/O on it then fails), then the API returns. */
  async detach(id: string, nodeName: string): Promise<void> {
    const disk = this.disk(id);
    const attachment = disk.attachments.get(nodeName);
    if (attachment === undefined) return;
    if (attachment.state !== "attached") {
      throw new CloudDiskError("Busy", `disk ${id} is ${attachment.state} on node ${nodeName}; retry when it settles`);
    }
    attachment.state = "detaching";
    await this.wait(disk.faults.detachLatencyMs ?? diskDetachLatencyDefaultMs);
    if (disk.faults.detachError !== undefined) {
      attachment.state = "attached";
      throw new CloudDiskError(
        "Injected",
        `detaching disk ${id} from node ${nodeName} failed: ${disk.faults.detachError}`,
      );
    }
    this.nodes.unplug(nodeName, disk);
    disk.attachments.delete(nodeName);
  }

  /** Disks attached (fully) to a node, for re-creating their devices when it boots. */
  attachedTo(nodeName: string): Array<{ disk: CloudDisk; readOnly: boolean }> {
    const found: Array<{ disk: CloudDisk; readOnly: boolean }> = [];
    for (const disk of this.disks.values()) {
      const attachment = disk.attachments.get(nodeName);
      if (attachment?.state === "attached") found.push({ disk, readOnly: attachment.readOnly });
    }
    return found;
  }

  private checkAttachable(disk: CloudDisk, nodeName: string, readOnly: boolean): void {
    const nodeZone = this.nodes.zoneOf(nodeName);
    if (disk.zone !== undefined && nodeZone !== undefined && disk.zone !== nodeZone) {
      throw new CloudDiskError(
        "ZoneMismatch",
        `disk ${disk.id} is in zone ${disk.zone} but node ${nodeName} is in zone ${nodeZone}`,
      );
    }
    if (disk.multiAttach) return;
    checkExclusiveAttach(disk, nodeName, readOnly);
  }

  private async wait(latencyMs: number): Promise<void> {
    if (latencyMs > 0) await this.clock.sleep(latencyMs);
  }
}
