/**
 * The Host seam: everything a node does to its kernel and its userland. Plugins, the kubelet and
 * CSI node drivers act on a node only through a Host, so the same code runs against
 * `host/sim` (a deterministic model of one node's kernel, with faults) and `host/linux` (real
 * syscalls and real binaries, tested in private mount namespaces).
 *
 * The Host is deliberately low level — files, mountinfo, running binaries, processes — like the
 * kernel plus the binaries a node has installed. Kubernetes' mount-utils logic (how `mount` is
 * invoked, the systemd scope, the error texts, CleanupMountPoint, SafeFormatAndMount) is written
 * once above it in `host/mount/`, so a missing `mount.nfs` fails with exit status 32 and the same
 * text on both.
 */

/** The errno names a Host reports; `IsCorruptedMnt` looks at ENOTCONN, ESTALE, EIO, EACCES, EHOSTDOWN, EWOULDBLOCK, ENODEV. */
export type Errno =
  | "ENOENT"
  | "EEXIST"
  | "ENOTDIR"
  | "EISDIR"
  | "ENOTEMPTY"
  | "EBUSY"
  | "EINVAL"
  | "EPERM"
  | "EACCES"
  | "EXDEV"
  | "ENOTCONN"
  | "ESTALE"
  | "EIO"
  | "EHOSTDOWN"
  | "EWOULDBLOCK"
  | "ENODEV"
  | "ETIMEDOUT"
  | "ELOOP"
  | "ENOSPC"
  | "EROFS"
  | "EADDRINUSE";

/**
 * A failed system call: `stat /var/lib/kubelet/...: transport endpoint is not connected`.
 *
 * An errno is an ordinary answer (every existence check meets ENOENT), so it carries no stack trace:
 * capturing one cost more than the simulated system call itself. The message names the call and path.
 */
export class HostError extends Error {
  readonly code: Errno;
  readonly syscall: string;
  readonly path: string;
  constructor(code: Errno, syscall: string, path: string, detail?: string) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`${syscall} ${path}: ${detail ?? ERRNO_TEXT[code]}`);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "HostError";
    this.code = code;
    this.syscall = syscall;
    this.path = path;
  }
}

/** strerror(3) texts, lower-cased as Go prints them. */
export const ERRNO_TEXT: Record<Errno, string> = {
  ENOENT: "no such file or directory",
  EEXIST: "file exists",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  ENOTEMPTY: "directory not empty",
  EBUSY: "device or resource busy",
  EINVAL: "invalid argument",
  EPERM: "operation not permitted",
  EACCES: "permission denied",
  EXDEV: "invalid cross-device link",
  ENOTCONN: "transport endpoint is not connected",
  ESTALE: "stale NFS file handle",
  EIO: "input/output error",
  EHOSTDOWN: "host is down",
  EWOULDBLOCK: "resource temporarily unavailable",
  ENODEV: "no such device",
  ETIMEDOUT: "connection timed out",
  ELOOP: "too many levels of symbolic links",
  ENOSPC: "no space left on device",
  EROFS: "read-only file system",
  EADDRINUSE: "address already in use",
};

export function isHostError(err: unknown, code?: Errno): err is HostError {
  return err instanceof HostError && (code === undefined || err.code === code);
}

export type FileType = "file" | "directory" | "symlink" | "socket" | "charDevice" | "blockDevice" | "fifo";

export interface FileStat {
  type: FileType;
  /** Permission bits only (0o755). */
  mode: number;
  size: number;
  /** The device id of the filesystem holding the file: differs from the parent's across a mount. */
  dev: number;
  ino: number;
}

/** statfs(2) of the filesystem holding a path, in bytes (free = what an unprivileged writer may still use). */
/** What statfs(2) says of a filesystem, as Kubernetes reads it (pkg/volume/util/fs). */
export interface FilesystemSpace {
  /** f_blocks × f_bsize. */
  totalBytes: number;
  /** Available to an unprivileged user: f_bavail × f_bsize. */
  freeBytes: number;
  /** (f_blocks − f_bfree) × f_bsize: blocks reserved for root count as neither used nor available. */
  usedBytes: number;
  /** f_files. */
  inodes: number;
  /** f_ffree. */
  inodesFree: number;
}

/** One line of /proc/self/mountinfo. */
export interface MountInfo {
  id: number;
  parentId: number;
  /** `major:minor` of the mounted filesystem. */
  majorMinor: string;
  /** The path inside the source filesystem that is mounted (`/` for a whole filesystem, a subdir for a bind). */
  root: string;
  mountPoint: string;
  options: string[];
  fsType: string;
  source: string;
  superOptions: string[];
}

export interface CommandResult {
  exitCode: number;
  /** stdout and stderr combined, as mount-utils captures them. */
  output: string;
}

export interface RunOptions {
  /** Kill the command after this long and fail with ETIMEDOUT (`umount` deadline, `rbd` calls). */
  timeoutMs?: number;
  /** Bytes for the command's standard input. */
  input?: string;
  /**
   * The agent running the command (`kubelet`): a daemon the command forks without a scope of its own
   * (a FUSE mount run without systemd-run) joins this agent's scope and dies when the agent does.
   * A real node needs no name: the child is in the calling process's cgroup already.
   */
  agent?: string;
}

/** Which scope a started daemon lives in, and so which kill takes it down. */
export type DaemonScope =
  /** The calling agent's own cgroup / process group: dies when the agent is killed or restarted. */
  | "agent"
  /** A scope of its own (`systemd-run --scope`, or its own session and cgroup): outlives the agent. */
  | "own";

export interface DaemonSpec {
  /** A short name for messages (`fuse:pvc-1234`). */
  name: string;
  command: string;
  args: string[];
  scope: DaemonScope;
  /**
   * Which agent an "agent"-scope daemon belongs to (`csi-node/fuse.csi.kvol.io`, `kubelet`), when
   * several agents share one node: a restart of one agent kills its daemons and no one else's.
   */
  agent?: string;
}

export interface ProcessInfo {
  pid: number;
  name: string;
  command: string;
  args: string[];
  scope: DaemonScope;
  /** The agent named in the DaemonSpec, if any. */
  agent?: string;
}

export interface Host {
  /** The node's name, as in its Node object. */
  readonly nodeName: string;

  // Files. Paths are absolute. Errors are HostErrors with the errno a real kernel would give.
  stat(path: string): Promise<FileStat>;
  lstat(path: string): Promise<FileStat>;
  /** Size and free space of the filesystem holding `path` (statfs). */
  statfs(path: string): Promise<FilesystemSpace>;
  /** Like `mkdir -p` when `recursive`; the mode is applied regardless of umask (Kubernetes chmods after mkdir). */
  mkdir(path: string, mode: number, options?: { recursive?: boolean }): Promise<void>;
  readdir(path: string): Promise<string[]>;
  readFile(path: string): Promise<Uint8Array>;
  writeFile(path: string, data: Uint8Array | string, mode?: number): Promise<void>;
  /** Atomic within one filesystem (EXDEV across mounts); replaces a symlink or file at `to`. */
  rename(from: string, to: string): Promise<void>;
  symlink(target: string, path: string): Promise<void>;
  readlink(path: string): Promise<string>;
  unlink(path: string): Promise<void>;
  /** Removes an empty directory only (never recursive, so live data is never deleted). */
  rmdir(path: string): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  /** Creates a file of `sizeBytes`, or resizes an existing one keeping its bytes (a block-mode backing file; sparse where the host can). */
  createSparseFile(path: string, sizeBytes: number): Promise<void>;
  /**
   * `cp -a --sparse=always FROM TO`: a copy of a file, or of a directory with everything under it
   * (files with their bytes, size and holes, directories, symlinks as links, permission bits), made
   * at `to`, which must not exist (EEXIST) and whose parent must (ENOENT). A copy of a volume's
   * data, as a storage system's snapshot or clone is; later changes to either side stay apart.
   */
  copyTree(from: string, to: string): Promise<void>;

  // Mount table.
  /** The current mount table (a consistent read of /proc/self/mountinfo). */
  mountInfo(): Promise<MountInfo[]>;
  /** The id of the top mount serving `path` (the longest mount point containing it); undefined if none. */
  mountIdAt(path: string): Promise<number | undefined>;

  // Userland.
  /** True when `name` is an executable on the node's PATH (`mount.nfs`, `rbd`, `systemd-run`). */
  hasCommand(name: string): Promise<boolean>;
  /** Runs a binary to completion (mount, umount, losetup, blkid, mkfs.*, rbd, systemd-run …). */
  run(command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult>;

  // Processes.
  startDaemon(spec: DaemonSpec): Promise<ProcessInfo>;
  isProcessAlive(pid: number): Promise<boolean>;
  /** Sends SIGKILL (the way an OOM kill or a container restart ends a process). */
  killProcess(pid: number): Promise<void>;
  /** The daemons this Host started that are still alive. */
  daemons(): Promise<ProcessInfo[]>;
  /**
   * The processes that keep the mount at `mountPoint` busy (an open file, a working directory, a
   * root under it), as `fuser -m` would name them; absent where the host cannot tell.
   */
  mountHolders?(mountPoint: string): Promise<MountHolder[]>;
}

/** A process keeping a mount busy. */
export interface MountHolder {
  pid: number;
  /** Its command line, space-separated. */
  command: string;
}
