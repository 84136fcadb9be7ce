/**
 * Path resolution across mounts, the kernel's namei: each component is looked up in the filesystem
 * of the current mount, a directory covered by a mount is replaced by that mount's root, and symbolic
 * links are followed (at most `maxSymlinkFollowsCount`, then ELOOP). Before reading a filesystem the
 * walk asks its superblock whether it can be reached, so a path under a dead FUSE mount fails with
 * ENOTCONN and one under a hung NFS server waits.
 *
 * `..` is resolved lexically (the path is normalised before the walk, and so is a symlink's target
 * joined to its directory). That differs from Linux only when `..` follows a symlink to a directory
 * elsewhere, which nothing in the volume code relies on.
 */
import { posix } from "node:path";
import { HostError } from "../host.ts";
import type { Inode, SimFilesystem } from "./filesystem.ts";
import type { MountEntry, MountTable } from "./mount-table.ts";
import { maxSymlinkFollowsCount } from "./sim-constants.ts";
import type { Cancellation } from "./sim-wait.ts";

/** Where a path leads: a mount, an inode of that mount's filesystem, and the canonical path. */
export interface Location {
  readonly mount: MountEntry;
  readonly ino: number;
  readonly path: string;
}

/** The directory that holds a path's last component, and that component's name. */
export interface ParentLocation {
  readonly dir: Location;
  readonly name: string;
  /** Canonical path of the entry itself. */
  readonly path: string;
}

interface WalkOptions {
  /** Follow a symbolic link in the last component (stat) or not (lstat). */
  followLast: boolean;
  /**
   * Skip the reachability check of the filesystem the walk ends in. umount looks a mount point up
   * this way (LOOKUP_MOUNTPOINT), which is why a dead FUSE mount can still be unmounted.
   */
  skipFinalAccessCheck?: boolean;
}

export function filesystemOf(location: Location): SimFilesystem {
  return location.mount.superblock.fs;
}

export function inodeAt(location: Location): Inode {
  return filesystemOf(location).inode(location.ino);
}

/** A path with an empty, `.` or `..` component, or a trailing slash: only those need normalising. */
const unnormalized = /\/\.{0,2}(?:\/|$)/;

export function requireAbsolute(path: string, syscall: string): string {
  if (!path.startsWith("/")) throw new HostError("EINVAL", syscall, path, "path must be absolute");
  return path === "/" || !unnormalized.test(path) ? path : posix.normalize(path);
}

export class PathWalker {
  constructor(private readonly mounts: MountTable) {}

  rootLocation(): Location {
    return this.crossMounts({ mount: this.mounts.root, ino: this.mounts.root.rootIno, path: "/" });
  }

  /**
   * Resolves a whole path. Errors name `path` as the caller gave it, as Go's os errors do.
   *
   * Every syscall walks its path, so the loop allocates nothing per component: the position is kept
   * in locals, and the canonical path of a component is not built as it is passed — it is the
   * components consumed so far (the walked path is normalised, and a symlink restarts the walk on
   * its normalised target), joined once where it is needed: at a symlink and at the end.
   */
  async walk(path: string, syscall: string, cancellation: Cancellation, options: WalkOptions): Promise<Location> {
    const normalized = requireAbsolute(path, syscall);
    let pending = components(normalized);
    let next = 0;
    let mount = this.mounts.root;
    let ino = mount.rootIno;
    ({ mount, ino } = this.topmost(mount, ino, "/"));
    // Only a filesystem that can be unreachable (FUSE, NFS, a device) has a check; the others cost no await.
    if (mount.superblock.accessCheck !== undefined) await this.checkAccess(mount, cancellation, syscall, path);
    let follows = 0;
    // Each pass consumes one component or follows one link; links are capped, so the loop is bounded.
    while (next < pending.length) {
      const name = pending[next] as string;
      const isLast = next === pending.length - 1;
      const fs = mount.superblock.fs;
      if (fs.inode(ino).type !== "directory") throw new HostError("ENOTDIR", syscall, path);
      const childIno = fs.lookup(ino, name);
      if (childIno === undefined) throw new HostError("ENOENT", syscall, path);
      let childMount = mount;
      let childInode = childIno;
      if (this.mounts.isCovered(mount, childIno)) {
        ({ mount: childMount, ino: childInode } = this.topmost(mount, childIno, pathOf(pending, next + 1)));
      }
      if (childMount !== mount && !(isLast && options.skipFinalAccessCheck)) {
        await this.checkAccess(childMount, cancellation, syscall, path);
      }
      const inode = childMount.superblock.fs.inode(childInode);
      if (inode.type === "symlink" && (!isLast || options.followLast)) {
        follows++;
        if (follows > maxSymlinkFollowsCount) throw new HostError("ELOOP", syscall, path);
        const linkDirectory = pathOf(pending, next);
        const target = posix.normalize(
          posix.isAbsolute(inode.target) ? inode.target : posix.join(linkDirectory, inode.target),
        );
        pending = [...components(target), ...pending.slice(next + 1)];
        next = 0;
        ({ mount, ino } = this.topmost(this.mounts.root, this.mounts.root.rootIno, "/"));
        continue;
      }
      mount = childMount;
      ino = childInode;
      next++;
      if (!isLast && mount.superblock.accessCheck !== undefined) {
        await this.checkAccess(mount, cancellation, syscall, path);
      }
    }
    return { mount, ino, path: pathOf(pending, next) };
  }

  /** Resolves the directory holding the last component (following links on the way) without touching the entry. */
  async walkParent(path: string, syscall: string, cancellation: Cancellation): Promise<ParentLocation> {
    const normalized = requireAbsolute(path, syscall);
    if (normalized === "/") throw new HostError("EBUSY", syscall, path);
    const dir = await this.walk(posix.dirname(normalized), syscall, cancellation, { followLast: true });
    if (inodeAt(dir).type !== "directory") throw new HostError("ENOTDIR", syscall, path);
    const name = posix.basename(normalized);
    return { dir, name, path: joinPath(dir.path, name) };
  }

  /** Replaces a covered directory by the root of the topmost mount on it, repeatedly (mounts stack). */
  crossMounts(location: Location): Location {
    const { mount, ino } = this.topmost(location.mount, location.ino, location.path);
    return mount === location.mount && ino === location.ino ? location : { mount, ino, path: location.path };
  }

  /** The mount and inode a directory of `mount` leads to once every mount stacked on it is crossed. */
  private topmost(mount: MountEntry, ino: number, path: string): { mount: MountEntry; ino: number } {
    let current = mount;
    let currentIno = ino;
    for (let depth = 0; depth <= this.mounts.size; depth++) {
      const covering = this.mounts.coveringMount(current, currentIno);
      if (covering === undefined) return { mount: current, ino: currentIno };
      current = covering;
      currentIno = covering.rootIno;
    }
    throw new Error(`mount table cycle at ${path}`);
  }

  private async checkAccess(
    mount: MountEntry,
    cancellation: Cancellation,
    syscall: string,
    path: string,
  ): Promise<void> {
    const check = mount.superblock.accessCheck;
    if (check !== undefined) await check(cancellation, syscall, path);
  }
}

function components(normalizedAbsolute: string): string[] {
  // posix.normalize keeps a trailing slash ("/a/" stays "/a/"): it names no component.
  const end = normalizedAbsolute.endsWith("/") ? -1 : undefined;
  const inner = normalizedAbsolute.slice(1, end);
  return inner === "" ? [] : inner.split("/");
}

function joinPath(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

/** The canonical path of the first `count` components of a walk. */
function pathOf(components: readonly string[], count: number): string {
  if (count === 0) return "/";
  return `/${(count === components.length ? components : components.slice(0, count)).join("/")}`;
}
