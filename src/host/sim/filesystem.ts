/**
 * One filesystem's contents: inodes holding real bytes, directories, symbolic links and device
 * nodes. A filesystem is shared by reference wherever it is visible — an NFS export mounted on
 * three nodes, a disk attached to one node and later to another — so bytes written through any mount
 * are the bytes every later reader sees. That is how a scenario proves no byte was lost.
 *
 * This layer knows nothing of paths or mounts (see vfs.ts); it stores, and enforces only what the
 * filesystem itself decides: the size limit (ENOSPC).
 */
import { HostError } from "../host.ts";
import {
  type DirectoryEntries,
  entryIno,
  entryPairs,
  noEntries,
  withEntry,
  withoutEntry,
} from "./directory-entries.ts";
import { InodeTable } from "./inode-table.ts";
import { symlinkMode } from "./sim-constants.ts";

/** An inode's number is its key in the table and in directory entries, not a field: a node holds a dozen per pod. */
interface InodeBase {
  mode: number;
}

export interface FileInode extends InodeBase {
  readonly type: "file";
  /**
   * The written bytes, owned by this file alone (its own buffer, or the shared empty `noBytes`, which
   * is never written); a sparse file's size may exceed them (the rest reads as zeros).
   */
  data: Uint8Array;
  sizeBytes: number;
}

interface DirectoryInode extends InodeBase {
  readonly type: "directory";
  /** Read-only outside this file; an empty directory (most leaves: mount points) shares `noEntries`. */
  entries: DirectoryEntries;
}

interface SymlinkInode extends InodeBase {
  readonly type: "symlink";
  readonly target: string;
}

/** Device nodes, sockets and fifos: `rdev` names the device (encoded as the kernel's dev_t). */
interface SpecialInode extends InodeBase {
  readonly type: "socket" | "charDevice" | "blockDevice" | "fifo";
  readonly rdev: number;
}

export type Inode = FileInode | DirectoryInode | SymlinkInode | SpecialInode;

type NewInode =
  | { type: "file"; mode: number; data: Uint8Array; sizeBytes?: number }
  | { type: "directory"; mode: number }
  | { type: "symlink"; target: string }
  | { type: "socket" | "charDevice" | "blockDevice" | "fifo"; mode: number; rdev: number };

interface FilesystemOptions {
  /** Writes beyond this many bytes of file data fail with ENOSPC (tmpfs size=, a disk's capacity). */
  sizeLimitBytes?: number;
  rootMode?: number;
}

/** Every empty file's bytes: data is replaced, never changed in place, so one empty array serves them all. */
const noBytes = new Uint8Array(0);

/** Names of at most this many characters are shared (longer ones are a pod's or a volume's own). */
const maxSharedNameLength = 16;
const maxSharedNames = 4096;
const sharedNames = new Map<string, string>();

/**
 * The name as a directory entry keeps it: short names (`volumes`, `plugins`, `app`) recur in every
 * pod's directories, and one string serves them all. A longer name is kept as given: the walk cuts
 * it out of the path as a V8 slice, which shares the path's characters with the mount table's entry.
 */
function storedName(name: string): string {
  if (name.length > maxSharedNameLength) return name;
  const shared = sharedNames.get(name);
  if (shared !== undefined) return shared;
  if (sharedNames.size >= maxSharedNames) return name;
  // Kept for good, so copied flat: a slice would keep the path it was cut from.
  const flat = JSON.parse(JSON.stringify(name)) as string;
  sharedNames.set(flat, flat);
  return flat;
}

/** Removes `name`; an emptied directory goes back to sharing `noEntries`. */
function deleteEntry(dir: DirectoryInode, name: string): void {
  dir.entries = withoutEntry(dir.entries, name);
}

/** A file's own copy of `data`: a file's bytes share no buffer with another file's. */
function copyBytes(data: Uint8Array): Uint8Array {
  return data.byteLength === 0 ? noBytes : data.slice();
}

const rootInodeNumber = 2; // ext4 and tmpfs both number their root directory 2

export class SimFilesystem {
  readonly rootIno = rootInodeNumber;
  private sizeLimit: number;
  private readonly inodes = new InodeTable<Inode>(rootInodeNumber);
  /**
   * Inodes a mount has as its root, with how many mounts do: an unlinked one lives on until unmounted.
   * Made on first use, as `orphans` is: a disk's filesystem is one of thousands.
   */
  private pins: Map<number, number> | undefined;
  /** Pinned inodes whose last directory entry is gone (`//deleted` in mountinfo). */
  private orphans: Set<number> | undefined;
  private nextIno = rootInodeNumber + 1;
  private usedBytesTotal = 0;

  constructor(options: FilesystemOptions = {}) {
    this.sizeLimit = options.sizeLimitBytes ?? Number.POSITIVE_INFINITY;
    this.inodes.set(this.rootIno, {
      type: "directory",
      mode: options.rootMode ?? 0o755,
      entries: noEntries,
    });
  }
  /** Writes beyond this many bytes of file data fail with ENOSPC. */
  get sizeLimitBytes(): number {
    return this.sizeLimit;
  }

  /** resize2fs / xfs_growfs: the filesystem now spans `bytes`; a filesystem never shrinks here. */
  growTo(bytes: number): void {
    if (!(bytes >= this.sizeLimit)) {
      throw new RangeError(`SimFilesystem.growTo: ${bytes} bytes would shrink a filesystem of ${this.sizeLimit} bytes`);
    }
    this.sizeLimit = bytes;
  }

  get usedBytes(): number {
    return this.usedBytesTotal;
  }

  get inodeCount(): number {
    return this.inodes.size;
  }

  inode(ino: number): Inode {
    const inode = this.inodes.get(ino);
    if (inode === undefined) throw new Error(`filesystem has no inode ${ino}: a mount or directory entry outlived it`);
    return inode;
  }

  lookup(dirIno: number, name: string): number | undefined {
    return entryIno(this.directory(dirIno).entries, name);
  }

  /**
   * Adds `name` to a directory, giving the new inode's number; the caller has checked that it is
   * absent. `errorPath` names it in ENOSPC.
   */
  create(dirIno: number, name: string, init: NewInode, errorPath: string): number {
    if (init.type === "file") this.charge(init.data.byteLength, errorPath);
    const ino = this.nextIno++;
    this.inodes.set(ino, build(init));
    const dir = this.directory(dirIno);
    dir.entries = withEntry(dir.entries, storedName(name), ino);
    return ino;
  }

  /** Removes a directory entry and frees the inode it named (no hard links, so one entry per inode). */
  remove(dirIno: number, name: string): void {
    const dir = this.directory(dirIno);
    const ino = entryIno(dir.entries, name);
    if (ino === undefined) return;
    deleteEntry(dir, name);
    if (!this.pins?.has(ino)) {
      this.free(ino);
      return;
    }
    this.orphans ??= new Set();
    this.orphans.add(ino);
  }

  /**
   * A mount takes `ino` as its root (a bind mount of a file or directory): like a Linux mount, it
   * holds the inode, so unlinking its last name leaves it alive, still seen through the mount.
   */
  pin(ino: number): void {
    this.pins ??= new Map();
    const pins = this.pins;
    pins.set(ino, (pins.get(ino) ?? 0) + 1);
  }

  /** A mount holding `ino` is gone; an inode unlinked meanwhile is freed with its last mount. */
  unpin(ino: number): void {
    const pins = this.pins;
    const count = pins?.get(ino);
    if (pins === undefined || count === undefined) return;
    if (count > 1) {
      pins.set(ino, count - 1);
      return;
    }
    pins.delete(ino);
    if (this.orphans?.delete(ino)) this.free(ino);
  }

  /** Whether `ino` has no name left and lives only through a mount. */
  isOrphan(ino: number): boolean {
    return this.orphans?.has(ino) === true;
  }

  /** Moves an entry within this filesystem; an existing entry at the destination is replaced. */
  move(fromDirIno: number, fromName: string, toDirIno: number, toName: string): void {
    const ino = this.lookup(fromDirIno, fromName);
    if (ino === undefined) return;
    if (this.lookup(toDirIno, toName) !== undefined) this.remove(toDirIno, toName);
    deleteEntry(this.directory(fromDirIno), fromName);
    const toDir = this.directory(toDirIno);
    toDir.entries = withEntry(toDir.entries, storedName(toName), ino);
  }

  /** Replaces a file's bytes, charging the difference against the size limit. */
  writeData(ino: number, data: Uint8Array, errorPath: string): void {
    const inode = this.inode(ino);
    if (inode.type !== "file") throw new HostError("EISDIR", "open", errorPath);
    const growth = data.byteLength - inode.data.byteLength;
    if (growth > 0 && this.usedBytesTotal + growth > this.sizeLimit) throw new HostError("ENOSPC", "write", errorPath);
    this.usedBytesTotal += growth;
    inode.data = copyBytes(data);
    inode.sizeBytes = data.byteLength;
  }

  /** truncate(2): the file's new size; bytes cut off no longer count against the size limit. */
  truncate(ino: number, sizeBytes: number): void {
    const inode = this.inode(ino);
    if (inode.type !== "file") throw new Error(`inode ${ino} is a ${inode.type}, not a file`);
    inode.sizeBytes = sizeBytes;
    if (inode.data.byteLength <= sizeBytes) return;
    this.usedBytesTotal -= inode.data.byteLength - sizeBytes;
    inode.data = copyBytes(inode.data.subarray(0, sizeBytes));
  }

  /** A file's bytes, with a sparse tail read as zeros. */
  readData(ino: number): Uint8Array {
    const inode = this.inode(ino);
    if (inode.type !== "file") throw new Error(`inode ${ino} is a ${inode.type}, not a file`);
    if (inode.sizeBytes === inode.data.byteLength) return inode.data.slice(); // the caller's own copy
    const full = new Uint8Array(inode.sizeBytes);
    full.set(inode.data.subarray(0, inode.sizeBytes));
    return full;
  }

  directory(ino: number): DirectoryInode {
    const inode = this.inode(ino);
    if (inode.type !== "directory") throw new Error(`inode ${ino} is a ${inode.type}, not a directory`);
    return inode;
  }

  /** Whether `ancestorIno` is `ino` or one of its ancestors (renaming a directory into itself is EINVAL). */
  isAncestor(ancestorIno: number, ino: number): boolean {
    if (ancestorIno === ino) return true;
    const ancestor = this.inode(ancestorIno);
    if (ancestor.type !== "directory") return false;
    for (const [, child] of entryPairs(ancestor.entries)) {
      if (this.isAncestor(child, ino)) return true;
    }
    return false;
  }

  private free(ino: number): void {
    const inode = this.inode(ino);
    if (inode.type === "file") this.usedBytesTotal -= inode.data.byteLength;
    this.inodes.delete(ino);
  }

  private charge(bytes: number, errorPath: string): void {
    if (this.usedBytesTotal + bytes > this.sizeLimit) throw new HostError("ENOSPC", "write", errorPath);
    this.usedBytesTotal += bytes;
  }
}

function build(init: NewInode): Inode {
  switch (init.type) {
    case "file":
      return {
        type: "file",
        mode: init.mode,
        data: copyBytes(init.data),
        sizeBytes: init.sizeBytes ?? init.data.byteLength,
      };
    case "directory":
      return { type: "directory", mode: init.mode, entries: noEntries };
    case "symlink":
      return { type: "symlink", mode: symlinkMode, target: init.target };
    default:
      return { type: init.type, mode: init.mode, rdev: init.rdev };
  }
}
