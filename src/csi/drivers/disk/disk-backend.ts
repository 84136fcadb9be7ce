/**
 * What disk.csi.kvol.io needs of a cloud's disk API: the simulated cloud's CloudDiskProvider
 * (`host/sim/world/disk-provider.ts`) is one, answering at once; `LoopDiskBackend` (sparse files
 * attached as loop devices on a real machine) is another, answering through the file system, so
 * every call may return a promise. The driver keeps no state of its own — the disks,
 * their sizes, zones and attachments are the provider's truth, and the mounts are the node's —
 * so a restarted driver, or one instance per node, sees the same volumes, as a cloud driver does.
 *
 * Provider errors carry a code; `csiErrorOfDisk` turns them into the CSI status the spec gives.
 */
import { CloudDiskError, type DiskContentSource, type DiskErrorCode } from "../../../host/sim/world/disk-provider.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import { CsiError, type CsiStatusName } from "../../grpc/errors.ts";

export interface DiskAttachmentView {
  readonly nodeName: string;
  readonly readOnly: boolean;
}

export interface DiskView {
  readonly id: string;
  readonly sizeBytes: number;
  readonly zone: string | undefined;
  readonly multiAttach: boolean;
  readonly attachments: ReadonlyMap<string, DiskAttachmentView>;
}

/** A point-in-time copy of a disk the backend keeps (CreateSnapshot's snapshot). */
export interface SnapshotView {
  readonly id: string;
  readonly sourceDiskId: string;
  readonly sizeBytes: number;
  /** When it was cut, in milliseconds since the epoch (the clock's). */
  readonly creationTimeMs: number;
  readonly readyToUse: boolean;
}

/** A value, or a promise of it: the simulated provider answers at once, a real one later. */
type MaybePromise<T> = T | Promise<T>;

export interface DiskBackend {
  /** A new disk, empty or holding a copy of `source` (TooSmall when the source is bigger than `sizeBytes`). */
  createDisk(
    id: string,
    sizeBytes: number,
    options: { zone?: string; multiAttach?: boolean; source?: DiskContentSource },
  ): MaybePromise<DiskView>;
  /** Copies the disk's content now (AlreadyExists for a taken id, NotFound for an unknown disk). */
  createSnapshot(id: string, sourceDiskId: string): MaybePromise<SnapshotView>;
  /** The snapshot; a CloudDiskError NotFound when there is none. */
  snapshot(id: string): MaybePromise<SnapshotView>;
  hasSnapshot(id: string): MaybePromise<boolean>;
  listSnapshots(): MaybePromise<readonly SnapshotView[]>;
  /** Deleting an unknown snapshot is not an error. */
  deleteSnapshot(id: string): MaybePromise<void>;
  /** The disk; a CloudDiskError NotFound when there is none. */
  disk(id: string): MaybePromise<DiskView>;
  has(id: string): MaybePromise<boolean>;
  list(): MaybePromise<readonly DiskView[]>;
  deleteDisk(id: string): MaybePromise<void>;
  /** Grows the disk to `sizeBytes` (a smaller or equal size changes nothing); the devices on nodes grow with it. */
  expandDisk(id: string, sizeBytes: number): MaybePromise<DiskView>;
  /** Resolves with the device path once the device exists on the node. */
  attach(id: string, nodeName: string, options: { readOnly?: boolean }): Promise<string>;
  detach(id: string, nodeName: string): Promise<void>;
  /**
   * The device of a disk attached to `nodeName`, as the node sees it now, for a backend that can
   * say better than the publish_context a VolumeAttachment kept: a loop device's number is reused
   * by the next disk once released, and a rebooted machine has lost it (the backend makes it again,
   * as a cloud re-plugs a disk into a booting node). Without it the node trusts publish_context.
   */
  attachedDevice?(id: string, nodeName: string): Promise<string>;
}

const statusOfDiskError: Readonly<Record<DiskErrorCode, CsiStatusName>> = {
  NotFound: "NotFound",
  NodeNotFound: "NotFound",
  AlreadyExists: "AlreadyExists",
  AttachedElsewhere: "FailedPrecondition",
  StillAttached: "FailedPrecondition",
  ZoneMismatch: "FailedPrecondition",
  // An attach or detach in progress: the caller retries with backoff, as for a pending operation.
  Busy: "Aborted",
  // A disk smaller than the snapshot or volume it would copy: the spec's answer for a capacity below the source.
  TooSmall: "OutOfRange",
  // No room for a snapshot's copy: the spec's answer for CreateSnapshot without enough space.
  NoSpace: "ResourceExhausted",
  Injected: "Internal",
};

/** The CSI status of a provider failure, prefixed by the RPC; anything else is Internal. */
function csiErrorOfDisk(error: unknown, rpc: string): CsiError {
  if (error instanceof CsiError) return error;
  if (error instanceof CloudDiskError) return new CsiError(statusOfDiskError[error.code], `${rpc}: ${error.message}`);
  return new CsiError("Internal", `${rpc}: ${errorMessage(error)}`);
}

/** Runs a provider call, turning its failure into the CSI status. */
export async function diskCall<T>(rpc: string, call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw csiErrorOfDisk(error, rpc);
  }
}
