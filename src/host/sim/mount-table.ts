/**
 * The node's mount table: which filesystem (or subtree of one, for bind mounts) covers which
 * directory of which parent mount. Mounts stack: the newest mount on a directory hides older ones,
 * and unmounting it uncovers them, as in Linux.
 */
import type { MountInfo } from "../host.ts";
import { sharedOptionList } from "./option-lists.ts";
import type { Superblock } from "./superblock.ts";

export interface MountEntry {
  readonly id: number;
  /** Undefined for the namespace root. */
  readonly parent: MountEntry | undefined;
  readonly superblock: Superblock;
  /** The inode of the superblock's filesystem that appears at the mount point. */
  readonly rootIno: number;
  /** Path of `rootIno` inside its filesystem: `/` for a whole filesystem, a subdirectory for a bind mount. */
  readonly rootPath: string;
  /** Canonical absolute path where the mount is visible. */
  readonly mountPoint: string;
  /** The inode of the parent mount's filesystem this mount covers (undefined for the root). */
  readonly coveredIno: number | undefined;
  /** Per-mount options, first `rw` or `ro` (`rw,relatime`): a shared list, replaced (never changed) on remount. */
  options: readonly string[];
  /** Processes keeping the mount busy (open files, working directories): umount fails with EBUSY. */
  busyHolders: number;
}

interface NewMount {
  parent: MountEntry;
  coveredIno: number;
  superblock: Superblock;
  rootIno: number;
  rootPath: string;
  mountPoint: string;
  options: readonly string[];
}

/** The parent id mountinfo shows for the namespace root (its parent lies outside the namespace). */
const rootParentId = 1;

export class MountTable {
  private readonly byId = new Map<number, MountEntry>();
  /**
   * The mounts on each covered directory, by the id of the mount it belongs to, then its inode: both
   * small integers, cheap to hash and stored unboxed. A directory's mounts are oldest first: nearly
   * always one, kept as the entry itself (no array).
   */
  private readonly stacks = new Map<number, Map<number, MountEntry | MountEntry[]>>();
  private nextId: number;
  readonly root: MountEntry;

  constructor(rootSuperblock: Superblock, firstId: number) {
    this.nextId = firstId;
    this.root = {
      id: this.nextId++,
      parent: undefined,
      superblock: rootSuperblock,
      rootIno: rootSuperblock.fs.rootIno,
      rootPath: "/",
      mountPoint: "/",
      coveredIno: undefined,
      options: sharedOptionList(["rw", "relatime"]),
      busyHolders: 0,
    };
    this.byId.set(this.root.id, this.root);
  }

  add(spec: NewMount): MountEntry {
    // Every field written out (a spread leaves most of them in a separate property array) and the
    // options a shared list: a node holds two mounts per running pod.
    const entry: MountEntry = {
      id: this.nextId++,
      parent: spec.parent,
      coveredIno: spec.coveredIno,
      superblock: spec.superblock,
      rootIno: spec.rootIno,
      rootPath: spec.rootPath,
      mountPoint: spec.mountPoint,
      options: sharedOptionList(spec.options),
      busyHolders: 0,
    };
    this.byId.set(entry.id, entry);
    let covered = this.stacks.get(spec.parent.id);
    if (covered === undefined) {
      covered = new Map();
      this.stacks.set(spec.parent.id, covered);
    }
    const stack = covered.get(spec.coveredIno);
    if (stack === undefined) covered.set(spec.coveredIno, entry);
    else if (Array.isArray(stack)) stack.push(entry);
    else covered.set(spec.coveredIno, [stack, entry]);
    return entry;
  }

  /** The topmost mount covering `ino` of `mount`'s filesystem, if any. */
  coveringMount(mount: MountEntry, ino: number): MountEntry | undefined {
    const stack = this.stacks.get(mount.id)?.get(ino);
    return Array.isArray(stack) ? stack[stack.length - 1] : stack;
  }

  /**
   * The directories of `mount` some mount covers, by inode (undefined when none): a walk that stays
   * in one mount asks this once rather than `isCovered` per component.
   */
  coveredIn(mount: MountEntry): ReadonlyMap<number, unknown> | undefined {
    return this.stacks.get(mount.id);
  }

  /** Whether some mount covers `ino` of `mount` (the path is a mount point as seen from the parent). */
  isCovered(mount: MountEntry, ino: number): boolean {
    return this.stacks.get(mount.id)?.has(ino) === true;
  }

  children(entry: MountEntry): MountEntry[] {
    return this.list().filter((candidate) => candidate.parent === entry);
  }

  /** Removes one mount; the caller has checked it has no children. */
  remove(entry: MountEntry): void {
    if (entry.parent === undefined || entry.coveredIno === undefined)
      throw new Error("the root mount cannot be removed");
    this.byId.delete(entry.id);
    const covered = this.stacks.get(entry.parent.id);
    const stack = covered?.get(entry.coveredIno);
    if (covered === undefined || stack === undefined) return;
    if (!Array.isArray(stack)) {
      if (stack === entry) this.uncover(covered, entry.parent.id, entry.coveredIno);
      return;
    }
    const rest = stack.filter((candidate) => candidate !== entry);
    if (rest.length === 0) this.uncover(covered, entry.parent.id, entry.coveredIno);
    else covered.set(entry.coveredIno, rest.length === 1 ? (rest[0] as MountEntry) : rest);
  }

  /** Forgets a directory's last mount, and the mount's map once it covers nothing. */
  private uncover(covered: Map<number, MountEntry | MountEntry[]>, mountId: number, ino: number): void {
    covered.delete(ino);
    if (covered.size === 0) this.stacks.delete(mountId);
  }

  /** Removes a mount and everything mounted below it (`umount -l`), deepest first. */
  removeTree(entry: MountEntry): MountEntry[] {
    const removed: MountEntry[] = [];
    for (const child of this.children(entry)) removed.push(...this.removeTree(child));
    this.remove(entry);
    removed.push(entry);
    return removed;
  }

  /** Every mount in mount order, as /proc/self/mountinfo lists them. */
  list(): MountEntry[] {
    return [...this.byId.values()];
  }

  get size(): number {
    return this.byId.size;
  }
}

export function isReadOnly(entry: MountEntry): boolean {
  return entry.options[0] === "ro";
}

export function toMountInfo(entry: MountEntry): MountInfo {
  const superblock = entry.superblock;
  return {
    id: entry.id,
    parentId: entry.parent?.id ?? rootParentId,
    majorMinor: superblock.majorMinor,
    // Linux marks a mount whose root was unlinked after it was mounted (a subPath bind of a replaced file).
    root: superblock.fs.isOrphan(entry.rootIno) ? `${entry.rootPath}//deleted` : entry.rootPath,
    mountPoint: entry.mountPoint,
    options: [...entry.options],
    fsType: superblock.fsType,
    source: superblock.source,
    superOptions: [...superblock.superOptions],
  };
}
