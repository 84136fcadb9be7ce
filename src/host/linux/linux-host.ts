/**
 * The Host of a real Linux node: node:fs for files (errnos mapped to HostErrors), the kernel's
 * mountinfo for the mount table, real binaries for mount(8) and friends, and real processes for
 * daemons. Tests run it inside a private mount namespace (`unshare --mount`), so nothing they
 * mount is visible outside or outlives them.
 */

import type { Stats } from "node:fs";
import {
  chmod,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  readlink,
  rename,
  rmdir,
  stat,
  statfs,
  symlink,
  unlink,
  writeFile,
} from "node:fs/promises";
import { posix } from "node:path";
import {
  type CommandResult,
  type DaemonSpec,
  type FileStat,
  type FilesystemSpace,
  type FileType,
  type Host,
  HostError,
  type MountHolder,
  type MountInfo,
  type ProcessInfo,
  type RunOptions,
} from "../host.ts";
import { commandNotFoundExitStatus } from "../mount/constants.ts";
import { topMountIdAt } from "../top-mount-id.ts";
import { findCommand } from "./command-path.ts";
import { defaultCommandSearchPath, killedProcessWatchReadsMax } from "./constants.ts";
import { DaemonSupervisor } from "./daemons.ts";
import { toHostError, withHostErrors } from "./errno.ts";
import { findMountHolders } from "./mount-holders.ts";
import { readMountInfo } from "./mount-info-reader.ts";
import { isProcessAlive } from "./process-state.ts";
import { runToCompletion } from "./run-command.ts";

interface LinuxHostOptions {
  /** The node's name, as in its Node object. */
  nodeName: string;
  /** PATH for finding and running binaries (default: this process's PATH, else the usual sbin/bin dirs). */
  commandSearchPath?: string;
  /** Receives problems that do not fail a call (a daemon that could not get a cgroup of its own). */
  onWarning?: (message: string) => void;
}

const permissionBitsMask = 0o777;

export class LinuxHost implements Host {
  readonly nodeName: string;
  private readonly commandSearchPath: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly daemonSupervisor: DaemonSupervisor;

  constructor(options: LinuxHostOptions) {
    this.nodeName = options.nodeName;
    this.commandSearchPath = options.commandSearchPath ?? process.env.PATH ?? defaultCommandSearchPath;
    this.env = { ...process.env, PATH: this.commandSearchPath };
    const warn = options.onWarning ?? ((message: string) => process.stderr.write(`linux host: ${message}\n`));
    this.daemonSupervisor = new DaemonSupervisor({ env: this.env, readMountInfo: () => this.mountInfo(), warn });
  }

  // Files.

  stat(path: string): Promise<FileStat> {
    return withHostErrors("stat", path, async () => toFileStat(await stat(path)));
  }

  lstat(path: string): Promise<FileStat> {
    return withHostErrors("lstat", path, async () => toFileStat(await lstat(path)));
  }

  statfs(path: string): Promise<FilesystemSpace> {
    return withHostErrors("statfs", path, async () => {
      const space = await statfs(path);
      return {
        totalBytes: space.blocks * space.bsize,
        freeBytes: space.bavail * space.bsize,
        usedBytes: (space.blocks - space.bfree) * space.bsize,
        inodes: space.files,
        inodesFree: space.ffree,
      };
    });
  }

  /** mkdir, then chmod of every directory this call created, so the mode holds whatever the umask. */
  async mkdir(path: string, mode: number, options: { recursive?: boolean } = {}): Promise<void> {
    if (options.recursive !== true) {
      await withHostErrors("mkdir", path, () => mkdir(path, { mode }));
      await this.chmod(path, mode);
      return;
    }
    const firstCreated = await withHostErrors("mkdir", path, () => mkdir(path, { mode, recursive: true }));
    if (firstCreated === undefined) {
      const existing = await this.stat(path);
      if (existing.type !== "directory") throw new HostError("ENOTDIR", "mkdir", path);
      return;
    }
    for (const created of directoriesBetween(firstCreated, path)) await this.chmod(created, mode);
  }

  /** Entry names, sorted (as Go's os.ReadDir returns them). */
  readdir(path: string): Promise<string[]> {
    return withHostErrors("open", path, async () => (await readdir(path)).sort());
  }

  readFile(path: string): Promise<Uint8Array> {
    return withHostErrors("open", path, () => readFile(path));
  }

  async writeFile(path: string, data: Uint8Array | string, mode?: number): Promise<void> {
    await withHostErrors("open", path, () => writeFile(path, data, mode === undefined ? {} : { mode }));
    if (mode !== undefined) await this.chmod(path, mode);
  }

  rename(from: string, to: string): Promise<void> {
    return withHostErrors("rename", `${from} ${to}`, () => rename(from, to));
  }

  symlink(target: string, path: string): Promise<void> {
    return withHostErrors("symlink", path, () => symlink(target, path));
  }

  readlink(path: string): Promise<string> {
    return withHostErrors("readlink", path, () => readlink(path));
  }

  unlink(path: string): Promise<void> {
    return withHostErrors("unlink", path, () => unlink(path));
  }

  rmdir(path: string): Promise<void> {
    return withHostErrors("rmdir", path, () => rmdir(path));
  }

  chmod(path: string, mode: number): Promise<void> {
    return withHostErrors("chmod", path, () => chmod(path, mode));
  }

  /** A file of `sizeBytes` that takes no blocks until written (ftruncate). */
  async createSparseFile(path: string, sizeBytes: number): Promise<void> {
    if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 0) {
      throw new HostError("EINVAL", "truncate", path, `sizeBytes must be a whole number >= 0, got ${sizeBytes}`);
    }
    await withHostErrors("truncate", path, async () => {
      // "a" creates a missing file and keeps an existing one's bytes: growing a disk must not wipe it.
      const file = await open(path, "a");
      try {
        await file.truncate(sizeBytes);
      } finally {
        await file.close();
      }
    });
  }

  /**
   * cp(1) itself, which keeps holes (a block volume's sparse file stays sparse) and may share blocks
   * (`--reflink=auto`); the existence checks first give the errnos the simulated node gives.
   */
  async copyTree(from: string, to: string): Promise<void> {
    await this.lstat(from);
    const existing = await withHostErrors("lstat", to, () => lstat(to)).catch((error: unknown) => {
      if (error instanceof HostError && error.code === "ENOENT") return undefined;
      throw error;
    });
    if (existing !== undefined) throw new HostError("EEXIST", "cp", to);
    await this.stat(posix.dirname(to));
    const result = await this.run("cp", ["-a", "--reflink=auto", "--sparse=always", "--", from, to]);
    if (result.exitCode !== 0) {
      throw new HostError("EIO", "cp", from, `cp exited with status ${result.exitCode}: ${result.output.trim()}`);
    }
  }

  // Mount table.

  mountInfo(): Promise<MountInfo[]> {
    return readMountInfo();
  }

  async mountIdAt(path: string): Promise<number | undefined> {
    return topMountIdAt(await readMountInfo(), path);
  }

  // Userland.

  async hasCommand(name: string): Promise<boolean> {
    return (await findCommand(name, this.commandSearchPath)) !== undefined;
  }

  /** A binary missing from PATH exits 127 with no output, as on the simulated node. */
  async run(command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult> {
    if (!(await this.hasCommand(command))) return { exitCode: commandNotFoundExitStatus, output: "" };
    return runToCompletion(command, args, this.env, options);
  }

  // Processes.

  async startDaemon(spec: DaemonSpec): Promise<ProcessInfo> {
    if (!(await this.hasCommand(spec.command))) throw new HostError("ENOENT", "exec", spec.command);
    return this.daemonSupervisor.start(spec);
  }

  isProcessAlive(pid: number): Promise<boolean> {
    return isProcessAlive(pid);
  }

  /**
   * SIGKILL, and return once the process is gone, so that isProcessAlive agrees right away (as on the
   * simulated node). A daemon started here is awaited through its exit; any other process is
   * watched in /proc for a bounded number of reads — one stuck in uninterruptible sleep (a hung NFS
   * call) may outlast them, as it would outlast the kill on a real node. A process already gone is
   * not an error.
   */
  async killProcess(pid: number): Promise<void> {
    try {
      process.kill(pid, "SIGKILL");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH") return;
      throw toHostError(error, "kill", String(pid));
    }
    const exited = this.daemonSupervisor.exitOf(pid);
    if (exited !== undefined) {
      await exited;
      return;
    }
    for (let read = 0; read < killedProcessWatchReadsMax && (await isProcessAlive(pid)); read += 1);
  }

  daemons(): Promise<ProcessInfo[]> {
    return this.daemonSupervisor.list();
  }

  /** Every process on the machine whose cwd, root, open files or mappings lie under the mount (fuser -m). */
  mountHolders(mountPoint: string): Promise<MountHolder[]> {
    return withHostErrors("open", "/proc", () => findMountHolders(mountPoint));
  }

  /** The cgroup v2 directory made for a daemon of scope "own", when one was made. */
  daemonCgroup(pid: number): string | undefined {
    return this.daemonSupervisor.cgroupOf(pid);
  }

  /** Removes empty daemon cgroups left behind by agents that have exited. */
  sweepOrphanDaemonCgroups(): Promise<string[]> {
    return this.daemonSupervisor.sweepOrphanCgroups();
  }
}

function toFileStat(stats: Stats): FileStat {
  return {
    type: fileTypeOf(stats),
    mode: stats.mode & permissionBitsMask,
    size: stats.size,
    dev: stats.dev,
    ino: stats.ino,
  };
}

function fileTypeOf(stats: Stats): FileType {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "symlink";
  if (stats.isSocket()) return "socket";
  if (stats.isCharacterDevice()) return "charDevice";
  if (stats.isBlockDevice()) return "blockDevice";
  return "fifo";
}

/** `first` and each directory below it down to `last` (both included): what `mkdir -p` created. */
function directoriesBetween(first: string, last: string): string[] {
  const dirs = [first];
  const rest = posix.relative(first, last);
  if (rest === "") return dirs;
  let current = first;
  for (const component of rest.split("/")) {
    current = posix.join(current, component);
    dirs.push(current);
  }
  return dirs;
}
