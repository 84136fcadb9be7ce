/**
 * The file system calls of the simulated kernel, over the mount table: what `stat`, `mkdir`,
 * `rename`… return on Linux, errno for errno. Operations that act on a directory entry (rmdir, unlink,
 * rename) look the entry up in its parent without crossing into a mount on it — so removing a mount
 * point fails with EBUSY even when the mounted filesystem is unreachable, as on Linux.
 */
import { posix } from "node:path";
import { type Errno, type FileStat, type FilesystemSpace, HostError } from "../host.ts";
import { entryCount, entryNames } from "./directory-entries.ts";
import type { FileInode, Inode } from "./filesystem.ts";
import { isReadOnly, type MountEntry } from "./mount-table.ts";
import {
  filesystemOf,
  inodeAt,
  type Location,
  type ParentLocation,
  type PathWalker,
  requireAbsolute,
} from "./path-walk.ts";
import { defaultFileMode, directorySizeBytes, filesystemBytesPerInode, nodeRootDiskBytes } from "./sim-constants.ts";
import type { Cancellation } from "./sim-wait.ts";

const permissionBits = 0o7777;
/** Shared: encoders are stateless, so one serves every symlink stat. */
const utf8 = new TextEncoder();

export class Vfs {
  constructor(
    private readonly walker: PathWalker,
    /** The cancellation that ends every wait when the node reboots or powers off. */
    private readonly lifetime: () => Cancellation,
  ) {}

  async stat(path: string): Promise<FileStat> {
    return statOf(await this.walker.walk(path, "stat", this.lifetime(), { followLast: true }));
  }

  /**
   * A filesystem without a size limit (the root disk) is reported as a disk of nodeRootDiskBytes;
   * its inodes are one per filesystemBytesPerInode, each file, directory and link using one.
   */
  async statfs(path: string): Promise<FilesystemSpace> {
    const fs = filesystemOf(await this.walker.walk(path, "statfs", this.lifetime(), { followLast: true }));
    const totalBytes = Number.isFinite(fs.sizeLimitBytes) ? fs.sizeLimitBytes : nodeRootDiskBytes;
    const usedBytes = Math.min(totalBytes, fs.usedBytes);
    const inodes = Math.max(fs.inodeCount, Math.floor(totalBytes / filesystemBytesPerInode));
    return {
      totalBytes,
      freeBytes: totalBytes - usedBytes,
      usedBytes,
      inodes,
      inodesFree: inodes - fs.inodeCount,
    };
  }

  async lstat(path: string): Promise<FileStat> {
    return statOf(await this.walker.walk(path, "lstat", this.lifetime(), { followLast: false }));
  }

  async mkdir(path: string, mode: number, recursive: boolean): Promise<void> {
    if (recursive) return this.mkdirAll(path, mode);
    const parent = await this.walker.walkParent(path, "mkdir", this.lifetime());
    if (filesystemOf(parent.dir).lookup(parent.dir.ino, parent.name) !== undefined) {
      throw new HostError("EEXIST", "mkdir", path);
    }
    requireWritable(parent.dir.mount, "mkdir", path);
    filesystemOf(parent.dir).create(
      parent.dir.ino,
      parent.name,
      { type: "directory", mode: mode & permissionBits },
      path,
    );
  }

  /**
   * `mkdir -p`, exactly as Go's os.MkdirAll: an existing directory is fine; otherwise (whatever stat
   * said) create the parents, then the directory, and if that fails accept only a directory found by
   * lstat. On a dead FUSE mount point this ends in "mkdir …: file exists", the error container
   * runtimes report there (spec §8.3).
   */
  private async mkdirAll(path: string, mode: number): Promise<void> {
    const existing = await this.probed(this.walker.probe(path, "mkdir", this.lifetime(), { followLast: true }), path);
    if (existing !== undefined) {
      if (inodeAt(existing).type !== "directory") throw new HostError("ENOTDIR", "mkdir", path);
      return;
    }
    const normalized = requireAbsolute(path, "mkdir");
    const parentPath = posix.dirname(normalized);
    if (parentPath !== normalized) await this.mkdirAll(parentPath, mode);
    const created = await this.settled(this.mkdir(path, mode, false));
    if (created.ok) return;
    const found = await this.settled(this.lstat(path));
    if (found.ok && found.value.type === "directory") return;
    throw created.error;
  }

  /**
   * mkdir -p's first look: the directory's Location, or undefined for any errno (as `settled` takes a
   * HostError) unless the node has gone down meanwhile, when the errno is thrown.
   */
  private async probed(operation: Location | Errno | Promise<Location>, path: string): Promise<Location | undefined> {
    try {
      const value = await operation;
      if (typeof value !== "string") return value;
      if (this.lifetime().cancelled) throw new HostError(value, "mkdir", path);
      return undefined;
    } catch (error) {
      if (error instanceof HostError && !this.lifetime().cancelled) return undefined;
      throw error;
    }
  }

  /** A HostError as a value, so the Go-shaped fallbacks above read straight; anything else is rethrown. */
  private async settled<T>(operation: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: HostError }> {
    try {
      return { ok: true, value: await operation };
    } catch (error) {
      if (error instanceof HostError && !this.lifetime().cancelled) return { ok: false, error };
      throw error;
    }
  }

  async readdir(path: string): Promise<string[]> {
    const location = await this.walker.walk(path, "open", this.lifetime(), { followLast: true });
    const inode = inodeAt(location);
    if (inode.type !== "directory") throw new HostError("ENOTDIR", "readdirent", path);
    return entryNames(inode.entries);
  }

  async readFile(path: string): Promise<Uint8Array> {
    const location = await this.walker.walk(path, "open", this.lifetime(), { followLast: true });
    const inode = inodeAt(location);
    if (inode.type === "directory") throw new HostError("EISDIR", "read", path);
    if (inode.type !== "file") return new Uint8Array(0);
    return filesystemOf(location).readData(location.ino);
  }

  /** Creates or truncates, like os.WriteFile; `mode` applies only to a new file. */
  async writeFile(path: string, data: Uint8Array, mode = defaultFileMode): Promise<void> {
    const existing = await this.walkOrUndefined(path, "open");
    if (existing !== undefined) {
      if (inodeAt(existing).type === "directory") throw new HostError("EISDIR", "open", path);
      requireWritable(existing.mount, "open", path);
      filesystemOf(existing).writeData(existing.ino, data, path);
      return;
    }
    const parent = await this.walker.walkParent(path, "open", this.lifetime());
    // An entry that exists while the full walk said ENOENT is a dangling symlink.
    if (filesystemOf(parent.dir).lookup(parent.dir.ino, parent.name) !== undefined) {
      throw new HostError("ENOENT", "open", path);
    }
    requireWritable(parent.dir.mount, "open", path);
    filesystemOf(parent.dir).create(
      parent.dir.ino,
      parent.name,
      { type: "file", mode: mode & permissionBits, data },
      path,
    );
  }

  async rename(from: string, to: string): Promise<void> {
    const source = await this.walker.walkParent(from, "rename", this.lifetime());
    const target = await this.walker.walkParent(to, "rename", this.lifetime());
    const errorPath = `${from} ${to}`;
    const fs = filesystemOf(source.dir);
    const sourceIno = fs.lookup(source.dir.ino, source.name);
    if (sourceIno === undefined) throw new HostError("ENOENT", "rename", errorPath);
    if (source.dir.mount !== target.dir.mount) throw new HostError("EXDEV", "rename", errorPath);
    requireWritable(source.dir.mount, "rename", errorPath);
    const targetIno = fs.lookup(target.dir.ino, target.name);
    if (this.isMountPoint(source, sourceIno) || (targetIno !== undefined && this.isMountPoint(target, targetIno))) {
      throw new HostError("EBUSY", "rename", errorPath);
    }
    if (sourceIno === targetIno) return;
    checkReplace(fs.inode(sourceIno), targetIno === undefined ? undefined : fs.inode(targetIno), errorPath);
    if (fs.inode(sourceIno).type === "directory" && fs.isAncestor(sourceIno, target.dir.ino)) {
      throw new HostError("EINVAL", "rename", errorPath);
    }
    fs.move(source.dir.ino, source.name, target.dir.ino, target.name);
  }

  async symlink(target: string, path: string): Promise<void> {
    const parent = await this.walker.walkParent(path, "symlink", this.lifetime());
    if (filesystemOf(parent.dir).lookup(parent.dir.ino, parent.name) !== undefined) {
      throw new HostError("EEXIST", "symlink", `${target} ${path}`);
    }
    requireWritable(parent.dir.mount, "symlink", path);
    filesystemOf(parent.dir).create(parent.dir.ino, parent.name, { type: "symlink", target }, path);
  }

  /**
   * bind(2) of a Unix socket: creates the socket file (a later bind on the same path fails with
   * EADDRINUSE, as on Linux; servers unlink a stale socket first).
   */
  async bindSocket(path: string, mode: number): Promise<void> {
    const parent = await this.walker.walkParent(path, "bind", this.lifetime());
    if (filesystemOf(parent.dir).lookup(parent.dir.ino, parent.name) !== undefined) {
      throw new HostError("EADDRINUSE", "bind", path);
    }
    requireWritable(parent.dir.mount, "bind", path);
    filesystemOf(parent.dir).create(
      parent.dir.ino,
      parent.name,
      { type: "socket", mode: mode & permissionBits, rdev: 0 },
      path,
    );
  }

  async readlink(path: string): Promise<string> {
    const location = await this.walker.walk(path, "readlink", this.lifetime(), { followLast: false });
    const inode = inodeAt(location);
    if (inode.type !== "symlink") throw new HostError("EINVAL", "readlink", path);
    return inode.target;
  }

  async unlink(path: string): Promise<void> {
    const { parent, ino, inode } = await this.entry(path, "unlink");
    if (this.isMountPoint(parent, ino)) throw new HostError("EBUSY", "unlink", path);
    if (inode.type === "directory") throw new HostError("EISDIR", "unlink", path);
    requireWritable(parent.dir.mount, "unlink", path);
    filesystemOf(parent.dir).remove(parent.dir.ino, parent.name);
  }

  async rmdir(path: string): Promise<void> {
    const { parent, ino, inode } = await this.entry(path, "rmdir");
    if (inode.type !== "directory") throw new HostError("ENOTDIR", "rmdir", path);
    if (this.isMountPoint(parent, ino)) throw new HostError("EBUSY", "rmdir", path);
    if (entryCount(inode.entries) > 0) throw new HostError("ENOTEMPTY", "rmdir", path);
    requireWritable(parent.dir.mount, "rmdir", path);
    filesystemOf(parent.dir).remove(parent.dir.ino, parent.name);
  }

  async chmod(path: string, mode: number): Promise<void> {
    const location = await this.walker.walk(path, "chmod", this.lifetime(), { followLast: true });
    requireWritable(location.mount, "chmod", path);
    inodeAt(location).mode = mode & permissionBits;
  }

  /** Creates a file of `sizeBytes` that reads as zeros, or resizes an existing one (truncate). */
  async createSparseFile(path: string, sizeBytes: number): Promise<void> {
    if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 0) {
      throw new HostError("EINVAL", "truncate", path, `sizeBytes must be a non-negative integer, got ${sizeBytes}`);
    }
    // Opened for append, as the real node does: an existing file keeps its bytes (a grown disk is not wiped).
    if ((await this.walkOrUndefined(path, "open")) === undefined) await this.writeFile(path, new Uint8Array(0));
    const location = await this.walker.walk(path, "truncate", this.lifetime(), { followLast: true });
    const inode = inodeAt(location);
    if (inode.type !== "file") throw new HostError("EINVAL", "truncate", path);
    requireWritable(location.mount, "truncate", path);
    location.mount.superblock.fs.truncate(location.ino, sizeBytes);
  }

  /** truncate(1) of an existing file, giving the file (the kernel resizes what it keeps beside it). */
  async truncate(path: string, sizeBytes: number): Promise<FileInode> {
    const location = await this.walker.walk(path, "truncate", this.lifetime(), { followLast: true });
    const inode = inodeAt(location);
    if (inode.type !== "file") throw new HostError("EINVAL", "truncate", path);
    location.mount.superblock.fs.truncate(location.ino, sizeBytes);
    return inode;
  }

  /**
   * Copies a regular file (cp(1) of one file): the new file has the source's bytes, size (holes
   * stay holes) and mode. Returns both inodes, so the kernel can copy what it keeps beside a file.
   */
  async copyFile(from: string, to: string): Promise<{ source: FileInode; copy: FileInode }> {
    const location = await this.walker.walk(from, "open", this.lifetime(), { followLast: true });
    const source = inodeAt(location);
    if (source.type === "directory") throw new HostError("EISDIR", "read", from);
    if (source.type !== "file") throw new HostError("EINVAL", "open", from);
    await this.writeFile(to, source.data, source.mode);
    const target = await this.walker.walk(to, "open", this.lifetime(), { followLast: true });
    const copy = inodeAt(target);
    if (copy.type !== "file") throw new HostError("EISDIR", "open", to);
    copy.sizeBytes = source.sizeBytes;
    return { source, copy };
  }

  /** The file at `path` (for the kernel's bookkeeping beside files); EINVAL for anything else. */
  async fileAt(path: string, syscall: string): Promise<FileInode> {
    const inode = inodeAt(await this.walker.walk(path, syscall, this.lifetime(), { followLast: true }));
    if (inode.type !== "file") throw new HostError("EINVAL", syscall, path);
    return inode;
  }

  /** Walks a path and gives undefined for ENOENT, so create-or-replace code reads straight. */
  async walkOrUndefined(path: string, syscall: string): Promise<Location | undefined> {
    try {
      const location = await this.walker.probe(path, syscall, this.lifetime(), { followLast: true });
      if (typeof location !== "string") return location;
      if (location === "ENOENT") return undefined;
      throw new HostError(location, syscall, path);
    } catch (error) {
      if (error instanceof HostError && error.code === "ENOENT") return undefined;
      throw error;
    }
  }

  private async entry(path: string, syscall: string): Promise<{ parent: ParentLocation; ino: number; inode: Inode }> {
    const parent = await this.walker.walkParent(path, syscall, this.lifetime());
    const fs = filesystemOf(parent.dir);
    const ino = fs.lookup(parent.dir.ino, parent.name);
    if (ino === undefined) throw new HostError("ENOENT", syscall, path);
    return { parent, ino, inode: fs.inode(ino) };
  }

  private isMountPoint(parent: ParentLocation, ino: number): boolean {
    return this.walker.crossMounts({ mount: parent.dir.mount, ino, path: parent.path }).mount !== parent.dir.mount;
  }
}

function statOf(location: Location): FileStat {
  const inode = inodeAt(location);
  return {
    type: inode.type,
    mode: inode.mode,
    size: sizeOf(inode),
    dev: location.mount.superblock.dev,
    ino: location.ino,
  };
}

function sizeOf(inode: Inode): number {
  switch (inode.type) {
    case "file":
      return inode.sizeBytes;
    case "directory":
      return directorySizeBytes;
    case "symlink":
      return utf8.encode(inode.target).byteLength;
    default:
      return 0;
  }
}

function requireWritable(mount: MountEntry, syscall: string, path: string): void {
  if (isReadOnly(mount)) throw new HostError("EROFS", syscall, path);
}

/** rename(2)'s rules for replacing an existing entry. */
function checkReplace(source: Inode, target: Inode | undefined, errorPath: string): void {
  if (target === undefined) return;
  if (source.type === "directory") {
    if (target.type !== "directory") throw new HostError("ENOTDIR", "rename", errorPath);
    if (entryCount(target.entries) > 0) throw new HostError("ENOTEMPTY", "rename", errorPath);
  } else if (target.type === "directory") {
    throw new HostError("EISDIR", "rename", errorPath);
  }
}
