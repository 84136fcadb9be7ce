/**
 * A filesystem as one node's kernel holds it: its device number on this node, its type and source,
 * and how reaching it can fail. The same `SimFilesystem` (an NFS export, a disk) gets a superblock on
 * every node that mounts it; bind mounts share their source's superblock, as in Linux.
 */
import type { BlockDevice } from "./devices.ts";
import type { SimFilesystem } from "./filesystem.ts";
import type { Cancellation } from "./sim-wait.ts";

/**
 * Checks, before each access, that the filesystem can be reached from this node. It throws the errno
 * a real kernel returns (ENOTCONN for a dead FUSE daemon, ESTALE, EIO for a vanished device) or waits
 * (a hard NFS mount whose server is down) until it can, or until the cancellation fires.
 */
export type FilesystemAccessCheck = (cancellation: Cancellation, syscall: string, path: string) => Promise<void>;

export interface Superblock {
  /** st_dev as the kernel encodes it (new_encode_dev). */
  readonly dev: number;
  readonly majorMinor: string;
  readonly fs: SimFilesystem;
  readonly fsType: string;
  /** What mountinfo shows as the source: `/dev/sdb`, `server:/export`, `tmpfs`. */
  readonly source: string;
  readonly superOptions: readonly string[];
  /**
   * Absent for filesystems that are always reachable (local disks, tmpfs). Call it as a method
   * (`superblock.accessCheck(...)`): a class implements it with `this`, so a detached copy breaks.
   */
  accessCheck?(cancellation: Cancellation, syscall: string, path: string): Promise<void>;
  /** The block device the filesystem lives on, for filesystems that have one. */
  readonly device: BlockDevice | undefined;
  /**
   * Runs when the last mount of this superblock goes away (a FUSE daemon exits on unmount). Call it
   * as a method (`superblock.onUnused?.()`): a class implements it with `this`.
   */
  onUnused?(): void;
  /**
   * What a plain (not forced, not lazy) umount waits for first: an NFS client flushes to its server,
   * so unmounting a hard mount of a dead server hangs until `umount -f` or `-l`.
   */
  readonly flushBeforeUnmount?: (cancellation: Cancellation) => Promise<void>;
  /** `umount -f` (MNT_FORCE): requests waiting for an unreachable server are aborted with EIO. */
  readonly abortPendingRequests?: () => void;
}

/** The kernel's dev_t encoding for stat (new_encode_dev), so numbers look like a real node's. */
export function encodeDev(major: number, minor: number): number {
  return (minor & 0xff) | (major << 8) | ((minor & ~0xff) << 12);
}

export function formatMajorMinor(major: number, minor: number): string {
  return `${major}:${minor}`;
}
