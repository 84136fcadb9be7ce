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
import { type Errno, HostError } from "../host.ts";
import { entryInoAt } from "./directory-entries.ts";
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

/**
 * Whether a path has an empty, `.` or `..` component, or a trailing slash: only those need
 * normalising. A scan rather than a regular expression, as every system call asks.
 */
function needsNormalizing(path: string): boolean {
  const length = path.length;
  for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
    if (i + 1 === length) return true;
    const next = path.charCodeAt(i + 1);
    if (next === slash) return true;
    if (next !== dot) continue;
    const after = i + 2 === length ? slash : path.charCodeAt(i + 2);
    if (after === slash) return true;
    if (after === dot && (i + 3 === length || path.charCodeAt(i + 3) === slash)) return true;
  }
  return false;
}

const slash = 0x2f;
const dot = 0x2e;

export function requireAbsolute(path: string, syscall: string): string {
  if (!path.startsWith("/")) throw new HostError("EINVAL", syscall, path, "path must be absolute");
  return path === "/" || !needsNormalizing(path) ? path : posix.normalize(path);
}

export class PathWalker {
  constructor(private readonly mounts: MountTable) {}

  rootLocation(): Location {
    return this.crossMounts({ mount: this.mounts.root, ino: this.mounts.root.rootIno, path: "/" });
  }

  /**
   * Resolves a whole path. Errors name `path` as the caller gave it, as Go's os errors do.
   *
   * Most walks meet no filesystem that can be unreachable and cross no mount: those are resolved at
   * once (a Location, or a rejected promise for an errno), costing the caller's `await` the same one
   * turn an async function's settled promise does, with no async frame and no HostError for an errno
   * the caller's caller never sees. A walk that reaches a mount or an access check starts again as
   * `walkAwaiting`, which awaits at the same points as ever: looking entries up changes nothing, so
   * starting again gives the same answer at the same turn.
   *
   * Callers must `await` the result directly. Returning it from an async function instead (or
   * wrapping it in another promise) adds or removes turns before the work after it runs, which
   * changes the order of events in the simulator.
   */
  walk(path: string, syscall: string, cancellation: Cancellation, options: WalkOptions): Location | Promise<Location> {
    const resolved = this.tryResolveAtOnce(path, syscall, options);
    if (resolved instanceof Promise) return resolved;
    if (resolved === mustAwait) return this.walkAwaiting(path, syscall, cancellation, options);
    if (typeof resolved === "string") return Promise.reject(new HostError(resolved, syscall, path));
    return resolved;
  }

  /**
   * `walk` for a caller that takes an errno as an answer (mkdir -p's first look, create-or-replace):
   * the errno where `walk` would reject at once, so no HostError is built for it. A walk that awaits
   * still rejects with its HostError.
   */
  probe(
    path: string,
    syscall: string,
    cancellation: Cancellation,
    options: WalkOptions,
  ): Location | Errno | Promise<Location> {
    const resolved = this.tryResolveAtOnce(path, syscall, options);
    if (resolved instanceof Promise) return resolved;
    return resolved === mustAwait ? this.walkAwaiting(path, syscall, cancellation, options) : resolved;
  }

  /** `resolveAtOnce`, with what it throws rejected as the async walk rejected it. */
  private tryResolveAtOnce(
    path: string,
    syscall: string,
    options: WalkOptions,
  ): Location | Errno | typeof mustAwait | Promise<never> {
    try {
      return this.resolveAtOnce(path, syscall, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The walk of `walkAwaiting` while it would not await: the Location, the errno it would throw, or
   * `mustAwait` where it would first await (an access check, or crossing into a mount). Throws only
   * what is no errno of the walked path (a relative path's EINVAL with its detail); it never crosses
   * a mount, so it never meets a mount cycle.
   */
  private resolveAtOnce(path: string, syscall: string, options: WalkOptions): Location | Errno | typeof mustAwait {
    let walked = withoutTrailingSlash(requireAbsolute(path, syscall));
    let start = 1;
    const root = this.mounts.root;
    const covered = this.mounts.coveredIn(root);
    if (covered?.has(root.rootIno) || root.superblock.accessCheck !== undefined) return mustAwait;
    const fs = root.superblock.fs;
    let ino = root.rootIno;
    let inode = fs.inode(ino);
    let follows = 0;
    while (start < walked.length) {
      const slashAt = walked.indexOf("/", start);
      const end = slashAt === -1 ? walked.length : slashAt;
      const isLast = end === walked.length;
      if (inode.type !== "directory") return "ENOTDIR";
      const childIno = entryInoAt(inode.entries, walked, start, end);
      if (childIno === undefined) return "ENOENT";
      if (covered?.has(childIno)) return mustAwait;
      const child = fs.inode(childIno);
      if (child.type === "symlink" && (!isLast || options.followLast)) {
        follows++;
        if (follows > maxSymlinkFollowsCount) return "ELOOP";
        walked = followedLink(walked, start, end, isLast, child.target);
        start = 1;
        ino = root.rootIno;
        inode = fs.inode(ino);
        continue;
      }
      ino = childIno;
      inode = child;
      start = end + 1;
    }
    return { mount: root, ino, path: walked === "" ? "/" : walked };
  }

  /** The walk, awaiting each access check and each mount crossed. */
  private async walkAwaiting(
    path: string,
    syscall: string,
    cancellation: Cancellation,
    options: WalkOptions,
  ): Promise<Location> {
    // The walked path without its trailing slash (which names no component): "" for the root.
    let walked = withoutTrailingSlash(requireAbsolute(path, syscall));
    // Where the next component starts (after its slash); the walk ends when it passes the end.
    let start = 1;
    let { mount, ino } = this.topmost(this.mounts.root, this.mounts.root.rootIno, "/");
    let inode = mount.superblock.fs.inode(ino);
    // Only a filesystem that can be unreachable (FUSE, NFS, a device) has a check; the others cost no await.
    if (mount.superblock.accessCheck !== undefined) await this.checkAccess(mount, cancellation, syscall, path);
    let follows = 0;
    // Each pass consumes one component or follows one link; links are capped, so the loop is bounded.
    while (start < walked.length) {
      const slashAt = walked.indexOf("/", start);
      const end = slashAt === -1 ? walked.length : slashAt;
      const isLast = end === walked.length;
      if (inode.type !== "directory") throw new HostError("ENOTDIR", syscall, path);
      const childIno = entryInoAt(inode.entries, walked, start, end);
      if (childIno === undefined) throw new HostError("ENOENT", syscall, path);
      let childMount = mount;
      let childInode = childIno;
      if (this.mounts.isCovered(mount, childIno)) {
        ({ mount: childMount, ino: childInode } = this.topmost(mount, childIno, walked.slice(0, end)));
      }
      if (childMount !== mount && !(isLast && options.skipFinalAccessCheck)) {
        await this.checkAccess(childMount, cancellation, syscall, path);
      }
      const child = childMount.superblock.fs.inode(childInode);
      if (child.type === "symlink" && (!isLast || options.followLast)) {
        follows++;
        if (follows > maxSymlinkFollowsCount) throw new HostError("ELOOP", syscall, path);
        walked = followedLink(walked, start, end, isLast, child.target);
        start = 1;
        ({ mount, ino } = this.topmost(this.mounts.root, this.mounts.root.rootIno, "/"));
        inode = mount.superblock.fs.inode(ino);
        continue;
      }
      mount = childMount;
      ino = childInode;
      inode = child;
      start = end + 1;
      if (!isLast && mount.superblock.accessCheck !== undefined) {
        await this.checkAccess(mount, cancellation, syscall, path);
      }
    }
    return { mount, ino, path: walked === "" ? "/" : walked };
  }

  /** Resolves the directory holding the last component (following links on the way) without touching the entry. */
  async walkParent(path: string, syscall: string, cancellation: Cancellation): Promise<ParentLocation> {
    const normalized = withoutTrailingSlash(requireAbsolute(path, syscall));
    if (normalized === "") throw new HostError("EBUSY", syscall, path);
    const lastSlash = normalized.lastIndexOf("/");
    const dir = await this.walk(lastSlash === 0 ? "/" : normalized.slice(0, lastSlash), syscall, cancellation, {
      followLast: true,
    });
    if (inodeAt(dir).type !== "directory") throw new HostError("ENOTDIR", syscall, path);
    const name = normalized.slice(lastSlash + 1);
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
    // Called as a method: a device's superblock checks its device.
    const superblock = mount.superblock;
    if (superblock.accessCheck !== undefined) await superblock.accessCheck(cancellation, syscall, path);
  }
}

/** Where `resolveAtOnce` stops: the walk would await from here on. */
const mustAwait: unique symbol = Symbol("mustAwait");

/**
 * The walked path once the link at component [start, end) is followed: its normalised target (joined
 * to the link's directory when relative) followed by the rest of the walked path, which is normalised
 * already, so the joined path is too.
 */
function followedLink(walked: string, start: number, end: number, isLast: boolean, linkTarget: string): string {
  const linkDirectory = start === 1 ? "/" : walked.slice(0, start - 1);
  const target = withoutTrailingSlash(
    posix.normalize(posix.isAbsolute(linkTarget) ? linkTarget : posix.join(linkDirectory, linkTarget)),
  );
  return isLast ? target : `${target}${walked.slice(end)}`;
}

/** A normalised absolute path without its trailing slash (posix.normalize keeps one): "" for the root. */
function withoutTrailingSlash(normalizedAbsolute: string): string {
  return normalizedAbsolute.endsWith("/") ? normalizedAbsolute.slice(0, -1) : normalizedAbsolute;
}

function joinPath(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}
