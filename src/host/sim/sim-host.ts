/**
 * SimHost: one simulated node, behind the same Host interface as a real Linux node. Files, the mount
 * table, commands and processes are modelled in the kernel (sim-kernel.ts) and its userland
 * (commands/); this class is the Host facade plus the faults a scenario can inject, each documented
 * with what it models. Nodes are created by SimWorld.addNode, which wires them to the shared world
 * (NFS servers, the RBD cluster, the disk provider).
 *
 * Timing: file operations complete at once; commands take no virtual time unless a latency is
 * injected (setCommandLatency) or they wait for the world (an NFS server, a FUSE daemon). A node that
 * is powered off fails every operation with EHOSTDOWN, and operations in flight when it goes down
 * fail the same way — the caller lived on that node, so in a scenario it is gone too.
 */
import { posix } from "node:path";
import {
  type CommandResult,
  type DaemonSpec,
  type FileStat,
  type FilesystemSpace,
  type Host,
  HostError,
  type MountHolder,
  type MountInfo,
  type ProcessInfo,
  type RunOptions,
} from "../host.ts";
import { commandNotFoundExitStatus } from "../mount/constants.ts";
import { topMountIdAt } from "../top-mount-id.ts";
import type { BlockStorage } from "./block-storage.ts";
import type { CommandContext } from "./commands/command-context.ts";
import { fuseArguments, isFuseProgram, startFuseDaemon } from "./commands/fuse.ts";
import { copyTreeOnNode } from "./copy-tree.ts";
import type { BlockDevice } from "./devices.ts";
import { type MountEntry, toMountInfo } from "./mount-table.ts";
import type { NodeEnvironment } from "./node-environment.ts";
import { simCommands } from "./sim-commands.ts";
import { socketDefaultMode } from "./sim-constants.ts";
import { type BootState, type ResolvedNodeOptions, SimKernel } from "./sim-kernel.ts";
import { Cancellation } from "./sim-wait.ts";
import type { CloudDisk } from "./world/disk-provider.ts";
import type { RbdClientInstance } from "./world/rbd-cluster.ts";

/** One encoder for every string written: encoders are stateless, and a new one per write is garbage. */
const utf8 = new TextEncoder();

/** A busy holder on a mount (an open file, a process's working directory): umount fails until released. */
export interface MountHold {
  readonly mountPoint: string;
  /** The holding process, as mountHolders names it. */
  readonly holder: MountHolder;
  release(): void;
}

/** The command line of a holder when the caller names none: a shell someone left in the directory. */
const defaultHolderCommand = "sh";

interface HeldPath {
  holder: MountHolder;
  /** The path held (its mount's point or below), compared by path as on a real node. */
  path: string;
  release(): void;
}

export class SimHost implements Host {
  private readonly kernel: SimKernel;
  private readonly installed: Set<string>;
  private readonly commandLatencyMs = new Map<string, number>();
  /** Holders by boot: a reboot ends every process, so a new boot starts with none. */
  private readonly heldPaths = new WeakMap<BootState, Map<number, HeldPath>>();

  constructor(
    readonly nodeName: string,
    options: ResolvedNodeOptions,
    env: NodeEnvironment,
    installedCommands: readonly string[],
  ) {
    this.kernel = new SimKernel(nodeName, options, env);
    this.installed = new Set(installedCommands);
    this.kernel.boot();
  }

  get options(): ResolvedNodeOptions {
    return this.kernel.options;
  }

  // ---- Host: files -------------------------------------------------------------------------

  async stat(path: string): Promise<FileStat> {
    return this.running("stat", path).vfs.stat(path);
  }

  async lstat(path: string): Promise<FileStat> {
    return this.running("lstat", path).vfs.lstat(path);
  }

  async statfs(path: string): Promise<FilesystemSpace> {
    return this.running("statfs", path).vfs.statfs(path);
  }

  async mkdir(path: string, mode: number, options?: { recursive?: boolean }): Promise<void> {
    return this.running("mkdir", path).vfs.mkdir(path, mode, options?.recursive ?? false);
  }

  async readdir(path: string): Promise<string[]> {
    return this.running("open", path).vfs.readdir(path);
  }

  async readFile(path: string): Promise<Uint8Array> {
    return this.running("open", path).vfs.readFile(path);
  }

  async writeFile(path: string, data: Uint8Array | string, mode?: number): Promise<void> {
    const bytes = typeof data === "string" ? utf8.encode(data) : data;
    return this.running("open", path).vfs.writeFile(path, bytes, mode);
  }

  async rename(from: string, to: string): Promise<void> {
    return this.running("rename", from).vfs.rename(from, to);
  }

  async symlink(target: string, path: string): Promise<void> {
    return this.running("symlink", path).vfs.symlink(target, path);
  }

  /**
   * Binds a Unix socket at `path`: the socket file appears on the node (what a CSI driver or
   * node-driver-registrar does when it starts listening). Not part of the Host seam: on a real node
   * the listening process binds it itself.
   */
  async bindSocket(path: string, mode = socketDefaultMode): Promise<void> {
    return this.running("bind", path).vfs.bindSocket(path, mode);
  }

  async readlink(path: string): Promise<string> {
    return this.running("readlink", path).vfs.readlink(path);
  }

  async unlink(path: string): Promise<void> {
    return this.running("unlink", path).vfs.unlink(path);
  }

  async rmdir(path: string): Promise<void> {
    return this.running("rmdir", path).vfs.rmdir(path);
  }

  async chmod(path: string, mode: number): Promise<void> {
    return this.running("chmod", path).vfs.chmod(path, mode);
  }

  async createSparseFile(path: string, sizeBytes: number): Promise<void> {
    return this.running("truncate", path).vfs.createSparseFile(path, sizeBytes);
  }

  async copyTree(from: string, to: string): Promise<void> {
    return copyTreeOnNode(this.kernel, this.running("open", from), from, to);
  }

  async mountInfo(): Promise<MountInfo[]> {
    return this.running("open", "/proc/self/mountinfo").mounts.list().map(toMountInfo);
  }

  /** Reads the mount table as mountInfo does, without building a MountInfo for every entry. */
  async mountIdAt(path: string): Promise<number | undefined> {
    return topMountIdAt(this.running("open", "/proc/self/mountinfo").mounts.list(), path);
  }

  // ---- Host: userland ----------------------------------------------------------------------

  async hasCommand(name: string): Promise<boolean> {
    this.running("stat", name);
    return this.installed.has(posix.basename(name));
  }

  /** Runs a command to completion; a timeout cancels it (nothing it was doing takes effect) with ETIMEDOUT. */
  async run(command: string, args: readonly string[], options: RunOptions = {}): Promise<CommandResult> {
    const state = this.running("exec", command);
    const cancellation = new Cancellation(state.lifetime);
    const timeoutMs = options.timeoutMs;
    const timer =
      timeoutMs === undefined
        ? undefined
        : this.kernel.env.clock.setTimer(timeoutMs, () =>
            cancellation.cancel(new HostError("ETIMEDOUT", "exec", command, `killed after ${timeoutMs} ms`)),
          );
    try {
      return await cancellation.race(this.execute(state, command, args, "agent", options.agent, cancellation));
    } finally {
      timer?.cancel();
      cancellation.dispose();
    }
  }

  // ---- Host: processes ---------------------------------------------------------------------

  /**
   * Starts a daemon in the scope the spec names. A FUSE program (s3fs, bindfs) mounts its filesystem
   * before this resolves; if it cannot, it has already exited (isProcessAlive is false).
   */
  async startDaemon(spec: DaemonSpec): Promise<ProcessInfo> {
    const state = this.running("exec", spec.command);
    const program = posix.basename(spec.command);
    if (!this.installed.has(program)) {
      throw new HostError(
        "ENOENT",
        "exec",
        spec.command,
        `exec: "${spec.command}": executable file not found in $PATH`,
      );
    }
    const fuse = isFuseProgram(program) ? fuseArguments(spec.args) : undefined;
    if (fuse === undefined) return { ...state.processes.start(spec).info };
    const { process } = await startFuseDaemon(this.kernel, state, {
      program,
      ...fuse,
      args: spec.args,
      scope: spec.scope,
      name: spec.name,
      ...(spec.agent === undefined ? {} : { agent: spec.agent }),
      cancellation: state.lifetime,
    });
    return { ...process.info };
  }

  async isProcessAlive(pid: number): Promise<boolean> {
    const state = this.running("kill", String(pid));
    return state.processes.isAlive(pid) || this.heldPaths.get(state)?.has(pid) === true;
  }

  /** A holder of a busy mount killed lets go of it, as its process would. */
  async killProcess(pid: number): Promise<void> {
    const state = this.running("kill", String(pid));
    this.heldPaths.get(state)?.get(pid)?.release();
    state.processes.kill(pid);
  }

  async daemons(): Promise<ProcessInfo[]> {
    return this.running("open", "/proc").processes.alive();
  }

  // ---- Faults ------------------------------------------------------------------------------

  /** Installs a package's binary (`mount.nfs` once nfs-utils is installed). */
  installCommand(name: string): void {
    if (!simCommands.has(name))
      throw new Error(`installCommand: the node model has no command named ${JSON.stringify(name)}`);
    this.installed.add(name);
  }

  /** Removes a binary: `removeCommand("mount.nfs")` is a node without nfs-utils (seed 002). */
  removeCommand(name: string): void {
    this.installed.delete(name);
  }

  /** Makes every run of `command` take this long first (a slow mount, a slow mkfs). 0 removes it. */
  setCommandLatency(command: string, latencyMs: number): void {
    if (!Number.isFinite(latencyMs) || latencyMs < 0) {
      throw new RangeError(`setCommandLatency: latencyMs must be a finite number >= 0, got ${latencyMs}`);
    }
    if (latencyMs === 0) this.commandLatencyMs.delete(command);
    else this.commandLatencyMs.set(command, latencyMs);
  }

  /**
   * The agent (kubelet, or a CSI plugin container) restarts: every process in its scope dies, FUSE
   * daemons included, while their kernel mounts stay (seed 003). Daemons in their own scope survive.
   * With `agent`, only the daemons started for that agent die (one plugin container restarting while
   * the kubelet and other plugins keep running); without it, every agent-scope daemon does.
   */
  killAgentScope(agent?: string): ProcessInfo[] {
    return this.running("kill", "agent scope").processes.killScope("agent", agent);
  }

  /**
   * Something on the node keeps the mount holding `path` busy (an open file, a leaked mount
   * namespace): a process running `command` with its working directory at `path`.
   */
  async holdMountBusy(path: string, command: string = defaultHolderCommand): Promise<MountHold> {
    const state = this.running("open", path);
    const location = await state.walker.walk(path, "open", state.lifetime, {
      followLast: true,
      skipFinalAccessCheck: true,
    });
    const mount = location.mount;
    const holder: MountHolder = { pid: state.processes.allocatePid(), command };
    const held = this.heldPaths.get(state) ?? new Map<number, HeldPath>();
    this.heldPaths.set(state, held);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      held.delete(holder.pid);
      mount.busyHolders--;
    };
    held.set(holder.pid, { holder, path: posix.normalize(path), release });
    mount.busyHolders++;
    return { mountPoint: mount.mountPoint, holder, release };
  }

  /** The holders put in place by holdMountBusy at or under `mountPoint`, in pid order (fuser -m by path). */
  async mountHolders(mountPoint: string): Promise<MountHolder[]> {
    const state = this.running("open", "/proc");
    const point = posix.normalize(mountPoint).replace(/(?<=.)\/+$/, "");
    const under = (path: string) => path === point || path.startsWith(point === "/" ? "/" : `${point}/`);
    return [...(this.heldPaths.get(state)?.values() ?? [])]
      .filter((held) => under(held.path))
      .map((held) => ({ ...held.holder }))
      .sort((a, b) => a.pid - b.pid);
  }

  /**
   * Reboot: processes die, mounts, loop and RBD mappings and tmpfs contents are gone; the root disk
   * (pod directories), attached disks and NFS data are kept; attached disks reappear as devices.
   */
  reboot(): void {
    this.kernel.shutdown("rebooted");
    this.kernel.boot();
  }

  /** Power loss: the node is unreachable (every operation fails with EHOSTDOWN) until powerOn boots it. */
  powerOff(): void {
    this.kernel.shutdown("powered off");
  }

  powerOn(): void {
    if (!this.kernel.poweredOn) this.kernel.boot();
  }

  get poweredOn(): boolean {
    return this.kernel.poweredOn;
  }

  /** Boots so far, the first included: a change tells a caller the node rebooted. */
  get bootCount(): number {
    return this.kernel.bootCount;
  }

  /** The block devices present now (for invariants: no loop device or mapping leaked after teardown). */
  blockDevices(): BlockDevice[] {
    return this.running("open", "/dev").devices.list();
  }

  /**
   * The kernel's mount entries with their superblocks and devices, in mount order (for invariants:
   * which storage each mount lives on, and whether its device is still there).
   */
  mountEntries(): readonly MountEntry[] {
    return this.running("open", "/proc/self/mountinfo").mounts.list();
  }

  /** Makes mkfs on the device at `devicePath` exit 1 with `output` until cleared with undefined. */
  async injectFormatFailure(devicePath: string, output: string | undefined): Promise<void> {
    const storage = await this.storageAt(devicePath);
    if (output === undefined) delete storage.faults.mkfsFailureOutput;
    else storage.faults.mkfsFailureOutput = output;
  }

  /** Fault: resize2fs of a mounted filesystem fails with "Permission denied" (no CAP_SYS_RESOURCE) until cleared. */
  denyOnlineResize(denied: boolean): void {
    this.kernel.onlineResizeDenied = denied;
  }

  /** Sets what `fsck -a` reports for the device: 1 corrected (once), 4 uncorrected (until changed). */
  async setFsckResult(devicePath: string, exitStatus: number, output: string): Promise<void> {
    const storage = await this.storageAt(devicePath);
    storage.faults.fsckExitStatus = exitStatus;
    storage.faults.fsckOutput = output;
  }

  // ---- Wiring used by SimWorld -------------------------------------------------------------

  /** The disk provider finished an attach: the device appears (when the node is running). */
  plugDisk(disk: CloudDisk, readOnly: boolean): void {
    if (this.kernel.poweredOn) this.kernel.plugDisk(disk, readOnly);
  }

  /** The disk provider detached a disk: the device vanishes, and filesystems on it fail with EIO. */
  unplugDisk(disk: CloudDisk): void {
    if (this.kernel.poweredOn) this.kernel.unplugDisk(disk);
  }

  /** This boot's RBD client, if the node mapped an image (for fencing). */
  rbdClient(): RbdClientInstance | undefined {
    return this.kernel.poweredOn ? this.running("open", "rbd").rbdClient : undefined;
  }

  private running(syscall: string, path: string): BootState {
    return this.kernel.state(syscall, path);
  }

  private async storageAt(devicePath: string): Promise<BlockStorage> {
    const device = await this.kernel.blockDeviceAt(devicePath, "open");
    if (device === undefined) throw new HostError("ENODEV", "open", devicePath, "not a block device");
    return device.storage;
  }

  private async execute(
    state: BootState,
    command: string,
    args: readonly string[],
    scope: ProcessInfo["scope"],
    agent: string | undefined,
    cancellation: Cancellation,
  ): Promise<CommandResult> {
    const name = posix.basename(command);
    const handler = simCommands.get(name);
    if (handler === undefined || !this.installed.has(name)) return { exitCode: commandNotFoundExitStatus, output: "" };
    const clock = this.kernel.env.clock;
    const context: CommandContext = {
      kernel: this.kernel,
      state,
      scope,
      agent,
      cancellation,
      isInstalled: (other) => this.installed.has(posix.basename(other)),
      run: (child, childArgs, childScope) => this.execute(state, child, childArgs, childScope, agent, cancellation),
      sleep: (delayMs) => cancellation.race(clock.sleep(delayMs)),
    };
    const latencyMs = this.commandLatencyMs.get(name) ?? 0;
    if (latencyMs > 0) await context.sleep(latencyMs);
    return handler(context, args);
  }
}
