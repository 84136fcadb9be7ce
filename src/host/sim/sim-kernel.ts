/**
 * The state of one simulated node's kernel, and the handful of kernel operations that userland
 * commands build on: mount(2), umount(2), looking up a block device, creating superblocks. The
 * kernel lives from boot to shutdown: a reboot or power loss drops the mount table, the processes,
 * loop and RBD mappings and every tmpfs, and cancels operations in flight; the root filesystem (and
 * with it the kubelet's pod directories) and the contents of disks and NFS exports persist.
 */
import { HostError } from "../host.ts";
import { BlockStorage, type FormattedContent } from "./block-storage.ts";
import { DeviceSuperblock } from "./device-superblock.ts";
import { type BlockDevice, BlockDeviceTable } from "./devices.ts";
import { type FileInode, SimFilesystem } from "./filesystem.ts";
import { type MountEntry, MountTable } from "./mount-table.ts";
import type { NodeEnvironment } from "./node-environment.ts";
import { sharedOptionList } from "./option-lists.ts";
import { inodeAt, PathWalker } from "./path-walk.ts";
import {
  anonymousMajor,
  defaultDirectoryMode,
  firstAnonymousMinor,
  firstDaemonPid,
  firstMountId,
  firstScopeUnitNumberMin,
  firstScopeUnitNumberSpan,
  minimumLoopSizeBytes,
  scsiDiskMajor,
} from "./sim-constants.ts";
import { ProcessTable } from "./sim-processes.ts";
import { Cancellation } from "./sim-wait.ts";
import { copyStorage } from "./storage-copy.ts";
import { encodeDev, type FilesystemAccessCheck, formatMajorMinor, type Superblock } from "./superblock.ts";
import { Vfs } from "./vfs.ts";
import { type CloudDisk, diskDevicePath } from "./world/disk-provider.ts";
import type { RbdClientInstance } from "./world/rbd-cluster.ts";

/** Whether systemd runs the node: as PID 1, installed but not PID 1 (inside a container), or absent. */
export type SystemdMode = "pid1" | "not-pid1" | "absent";
/** Which util-linux wording mount(8) and umount(8) use: CentOS 7's 2.23, or a current 2.38. */
export type UtilLinuxVersion = "2.23" | "2.38";

export interface ResolvedNodeOptions {
  readonly address: string;
  readonly zone: string | undefined;
  readonly memoryBytes: number;
  readonly systemd: SystemdMode;
  readonly utilLinux: UtilLinuxVersion;
}

export interface BootState {
  readonly bootId: string;
  readonly mounts: MountTable;
  readonly walker: PathWalker;
  readonly vfs: Vfs;
  readonly devices: BlockDeviceTable;
  readonly processes: ProcessTable;
  /** Cancelled at shutdown: every wait in flight ends with EHOSTDOWN. */
  readonly lifetime: Cancellation;
  /** This boot's RBD kernel client, created by the first `rbd map`. */
  rbdClient: RbdClientInstance | undefined;
  nextAnonymousMinor: number;
  readonly deviceSuperblocks: Map<SimFilesystem, Superblock>;
}

interface NewAnonymousSuperblock {
  fs: SimFilesystem;
  fsType: string;
  source: string;
  superOptions: string[];
  accessCheck?: FilesystemAccessCheck;
  onUnused?: () => void;
  flushBeforeUnmount?: (cancellation: Cancellation) => Promise<void>;
  abortPendingRequests?: () => void;
}

interface NewMountSpec {
  superblock: Superblock;
  rootIno: number;
  rootPath: string;
  options: string[];
}

const rootSuperblockMinor = 1; // /dev/sda1
const bootDirectories = ["dev", "etc", "mnt", "opt", "run", "tmp", "var"];

export class SimKernel {
  /** The node's root disk: survives reboots, so pod directories under /var/lib/kubelet do too. */
  readonly rootFs = new SimFilesystem();
  private current: BootState | undefined;
  private nextScopeUnit: number;
  /** What a loop device sees in a backing file; kept with the file, so it survives reboots as the file does. */
  private readonly fileStorage = new WeakMap<FileInode, BlockStorage>();
  private bootSequence = 0;
  /**
   * Fault: the node cannot grow a mounted filesystem (a node plugin without CAP_SYS_RESOURCE, as
   * in an unprivileged container): online resize2fs fails with EPERM; offline growth still works.
   */
  onlineResizeDenied = false;

  constructor(
    readonly nodeName: string,
    readonly options: ResolvedNodeOptions,
    readonly env: NodeEnvironment,
  ) {
    this.nextScopeUnit = env.rng.int(firstScopeUnitNumberMin, firstScopeUnitNumberMin + firstScopeUnitNumberSpan);
    for (const name of bootDirectories) {
      this.rootFs.create(this.rootFs.rootIno, name, { type: "directory", mode: defaultDirectoryMode }, `/${name}`);
    }
  }

  get poweredOn(): boolean {
    return this.current !== undefined;
  }

  /** The running kernel's state; fails with EHOSTDOWN while the node is off. */
  state(syscall: string, path: string): BootState {
    if (this.current === undefined)
      throw new HostError("EHOSTDOWN", syscall, path, `node ${this.nodeName} is powered off`);
    return this.current;
  }

  get bootCount(): number {
    return this.bootSequence;
  }

  boot(): void {
    if (this.current !== undefined) throw new Error(`node ${this.nodeName} is already running`);
    this.bootSequence++;
    const mounts = new MountTable(this.rootSuperblock(), firstMountId);
    const walker = new PathWalker(mounts);
    const lifetime = new Cancellation();
    const devFs = new SimFilesystem();
    const state: BootState = {
      bootId: this.env.rng.uuid(),
      mounts,
      walker,
      vfs: new Vfs(walker, () => lifetime),
      devices: new BlockDeviceTable(devFs),
      processes: new ProcessTable(firstDaemonPid),
      lifetime,
      rbdClient: undefined,
      nextAnonymousMinor: firstAnonymousMinor,
      deviceSuperblocks: new Map(),
    };
    this.current = state;
    this.mountAtBoot(
      state,
      "dev",
      this.anonymousSuperblock({ fs: devFs, fsType: "devtmpfs", source: "devtmpfs", superOptions: ["rw"] }),
    );
    const runFs = new SimFilesystem({ sizeLimitBytes: this.options.memoryBytes / 10 });
    this.mountAtBoot(
      state,
      "run",
      this.anonymousSuperblock({ fs: runFs, fsType: "tmpfs", source: "tmpfs", superOptions: ["rw"] }),
    );
    for (const { disk, readOnly } of this.env.disksAttachedTo(this.nodeName)) this.plugDisk(disk, readOnly);
  }

  /** Ends this boot: processes die, waits in flight fail with EHOSTDOWN, mounts and mappings vanish. */
  shutdown(reason: string): void {
    const state = this.current;
    if (state === undefined) return;
    this.current = undefined;
    state.lifetime.cancel(new HostError("EHOSTDOWN", "syscall", this.nodeName, `node ${this.nodeName} ${reason}`));
    state.processes.killAll();
    for (const entry of state.mounts.list()) entry.superblock.fs.unpin(entry.rootIno);
    for (const device of state.devices.list()) device.gone = true;
    if (state.rbdClient !== undefined) this.env.rbd.clientLost(state.rbdClient);
  }

  anonymousSuperblock(spec: NewAnonymousSuperblock): Superblock {
    const state = this.state("mount", spec.source);
    const minor = state.nextAnonymousMinor++;
    return {
      dev: encodeDev(anonymousMajor, minor),
      majorMinor: formatMajorMinor(anonymousMajor, minor),
      fs: spec.fs,
      fsType: spec.fsType,
      source: spec.source,
      superOptions: spec.superOptions,
      accessCheck: spec.accessCheck,
      device: undefined,
      onUnused: spec.onUnused,
      ...(spec.flushBeforeUnmount === undefined ? {} : { flushBeforeUnmount: spec.flushBeforeUnmount }),
      ...(spec.abortPendingRequests === undefined ? {} : { abortPendingRequests: spec.abortPendingRequests }),
    };
  }

  /** The superblock of a formatted device; mounting one device twice shares it, as Linux does. */
  deviceSuperblock(device: BlockDevice, content: FormattedContent, source: string): Superblock {
    const state = this.state("mount", source);
    const existing = state.deviceSuperblocks.get(content.fs);
    if (existing !== undefined && existing.device === device) return existing;
    const superOptions = sharedOptionList([device.readOnly ? "ro" : "rw"]);
    const superblock = new DeviceSuperblock(device, content, source, superOptions, this, state);
    state.deviceSuperblocks.set(content.fs, superblock);
    return superblock;
  }

  /** mount(2): attaches a filesystem (or a subtree of one) on top of whatever `target` resolves to. */
  async mount(target: string, spec: NewMountSpec, cancellation?: Cancellation): Promise<MountEntry> {
    const state = this.state("mount", target);
    const location = await state.walker.walk(target, "mount", cancellation ?? state.lifetime, { followLast: true });
    const targetIsDirectory = inodeAt(location).type === "directory";
    const sourceIsDirectory = spec.superblock.fs.inode(spec.rootIno).type === "directory";
    if (targetIsDirectory !== sourceIsDirectory) throw new HostError("ENOTDIR", "mount", target);
    spec.superblock.fs.pin(spec.rootIno);
    return state.mounts.add({
      parent: location.mount,
      coveredIno: location.ino,
      superblock: spec.superblock,
      rootIno: spec.rootIno,
      rootPath: spec.rootPath,
      mountPoint: location.path,
      options: spec.options,
    });
  }

  /** The mount whose root `target` is, or undefined when `target` is not a mount point. */
  async mountAt(target: string, cancellation?: Cancellation): Promise<MountEntry | undefined> {
    const state = this.state("umount", target);
    const location = await state.walker.walk(target, "umount", cancellation ?? state.lifetime, {
      followLast: true,
      skipFinalAccessCheck: true,
    });
    const mount = location.mount;
    return mount.parent !== undefined && location.ino === mount.rootIno ? mount : undefined;
  }

  /** umount(2): EINVAL when not a mount point, EBUSY when in use; MNT_DETACH takes the whole subtree. */
  async unmount(target: string, options: { lazy: boolean }, cancellation?: Cancellation): Promise<MountEntry[]> {
    const state = this.state("umount", target);
    const mount = await this.mountAt(target, cancellation);
    if (mount === undefined) throw new HostError("EINVAL", "umount", target);
    if (!options.lazy && (mount.busyHolders > 0 || state.mounts.children(mount).length > 0)) {
      throw new HostError("EBUSY", "umount", target);
    }
    const removed = options.lazy ? state.mounts.removeTree(mount) : [mount];
    if (!options.lazy) state.mounts.remove(mount);
    for (const entry of removed) {
      entry.superblock.fs.unpin(entry.rootIno);
      this.releaseIfUnused(state, entry.superblock);
    }
    return removed;
  }

  /** The block device a path names (`/dev/sdb`, a by-id link, a bind-mounted device file). */
  async blockDeviceAt(path: string, syscall: string, cancellation?: Cancellation): Promise<BlockDevice | undefined> {
    const state = this.state(syscall, path);
    const location = await state.walker.walk(path, syscall, cancellation ?? state.lifetime, { followLast: true });
    const inode = inodeAt(location);
    return inode.type === "blockDevice" ? state.devices.byDeviceNumber(inode.rdev) : undefined;
  }

  /** Mounts of a device's filesystem: a device in use cannot be formatted, unmapped or detached from a loop. */
  mountsOfDevice(device: BlockDevice): MountEntry[] {
    const state = this.state("open", device.path);
    return state.mounts.list().filter((entry) => entry.superblock.device === device);
  }

  plugDisk(disk: CloudDisk, readOnly: boolean): BlockDevice {
    const state = this.state("attach", disk.id);
    return state.devices.add({ kind: "disk", storage: disk.storage, readOnly, links: [diskDevicePath(disk.id)] });
  }

  unplugDisk(disk: CloudDisk): void {
    const state = this.state("detach", disk.id);
    for (const device of state.devices.list()) {
      if (device.kind === "disk" && device.storage === disk.storage) state.devices.remove(device);
    }
  }

  /** The block storage a loop device over `file` reads and writes (created on first use, sized like the file). */
  storageOfFile(file: FileInode): BlockStorage {
    const existing = this.fileStorage.get(file);
    if (existing !== undefined) return existing;
    const storage = new BlockStorage(Math.max(file.sizeBytes, minimumLoopSizeBytes));
    this.fileStorage.set(file, storage);
    return storage;
  }

  /** cp(1) of a file: the bytes, and the block content a loop device over the source would show. */
  async copyFile(state: BootState, from: string, to: string): Promise<void> {
    const { source, copy } = await state.vfs.copyFile(from, to);
    const storage = this.fileStorage.get(source);
    if (storage !== undefined)
      this.fileStorage.set(copy, copyStorage(storage, Math.max(copy.sizeBytes, minimumLoopSizeBytes)));
  }

  /** truncate(1): the file's new size; a loop device's content grows with it (its filesystem does not). */
  async truncateFile(state: BootState, path: string, sizeBytes: number): Promise<void> {
    const file = await state.vfs.truncate(path, sizeBytes);
    const storage = this.fileStorage.get(file);
    if (storage !== undefined)
      this.fileStorage.set(file, copyStorage(storage, Math.max(sizeBytes, minimumLoopSizeBytes)));
  }

  /** The next transient unit number (`run-<n>.scope`). */
  allocateScopeUnit(): number {
    return this.nextScopeUnit++;
  }

  private rootSuperblock(): Superblock {
    return {
      dev: encodeDev(scsiDiskMajor, rootSuperblockMinor),
      majorMinor: formatMajorMinor(scsiDiskMajor, rootSuperblockMinor),
      fs: this.rootFs,
      fsType: "ext4",
      source: "/dev/sda1",
      superOptions: ["rw"],
      accessCheck: undefined,
      device: undefined,
      onUnused: undefined,
    };
  }

  private mountAtBoot(state: BootState, directory: string, superblock: Superblock): void {
    const coveredIno = this.rootFs.lookup(this.rootFs.rootIno, directory);
    if (coveredIno === undefined) throw new Error(`root filesystem lost /${directory}`);
    superblock.fs.pin(superblock.fs.rootIno);
    state.mounts.add({
      parent: state.mounts.root,
      coveredIno,
      superblock,
      rootIno: superblock.fs.rootIno,
      rootPath: "/",
      mountPoint: `/${directory}`,
      options: ["rw", "nosuid", "relatime"],
    });
  }

  /** Throws the errno a read of `device` gets now: EIO once it is gone, or its node fenced from its storage. */
  checkDeviceReachable(device: BlockDevice, syscall: string, path: string): void {
    if (device.gone) throw new HostError("EIO", syscall, path);
    const client = this.current?.rbdClient;
    if (device.kind === "rbd" && client !== undefined && this.env.rbd.isFenced(client)) {
      throw new HostError("EIO", syscall, path);
    }
    if (device.kind === "disk" && this.env.isStorageFenced(this.nodeName)) throw new HostError("EIO", syscall, path);
  }

  private releaseIfUnused(state: BootState, superblock: Superblock): void {
    if (state.mounts.list().some((entry) => entry.superblock === superblock)) return;
    superblock.onUnused?.();
  }
}
