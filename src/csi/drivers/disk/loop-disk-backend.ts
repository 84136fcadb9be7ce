/**
 * Real attachable disks on one Linux machine, behind the same DiskBackend as the simulated cloud's:
 * each disk a sparse file `<disksDir>/<id>.img`, its record `<id>.json` (disk-state-file.ts), and
 * attaching it a loop device over the file (losetup), whose path ControllerPublishVolume hands to
 * the node as `devicePath`.
 *
 * - Exclusive unless multi-attach: a disk attached to one node is refused to another with the
 *   simulated provider's AttachedElsewhere error (FailedPrecondition), unless both attachments are
 *   read-only or the disk is multi-attach.
 * - One loop device per disk, whatever the number of nodes: the loop devices are the machine's, so
 *   every node on it (`kvol up --host linux --nodes N`, each node a mount namespace) sees the same
 *   device; a multi-attach disk's attachments share it, and the last detach releases it.
 * - Fenceable (node fencing's mode): one loop device per disk and node instead, each bound over the
 *   node's hard link of the disk's file (`<disksDir>/nodes/<node>/<id>.img`, node-loop-devices.ts),
 *   so `fenceNode` can make one node's devices fail every I/O (loop-fence.ts) and leave the other
 *   nodes' alone.
 * - Crash-safe: attach makes the loop device first and then records the attachment; an attach
 *   killed in between left a loop device that `losetup -j` finds (fenceable: by its node link) and
 *   the next attach reuses, so there are never two loop devices over one file (fenceable: for one
 *   node). Detach releases the loop device first and then records it; a detach killed in between
 *   is finished by the retry. A detach or delete of a disk with no recorded attachment releases a
 *   loop device such an interrupted attach left; delete removes the node links too.
 * - A disk's zone is recorded and reported as its topology, not enforced: every node on the machine
 *   reaches every disk, so there is no zone to mismatch (the simulated cloud's ZoneMismatch).
 * - Read-only attachments are recorded, and the device stays read-write: read-only is enforced by
 *   the mounts the node makes (a loop device's read-only flag cannot change while it is shared).
 *
 * Calls on one disk run one at a time within this process; one controller owns a disks directory
 * (as one cloud API owns its disks): two processes attaching from the same directory at once are
 * not coordinated.
 *
 * The loop device lives in the kernel, the record on disk: a machine that reboots keeps the
 * records and loses the loop devices, and the next attach (or the kubelet's re-attach) makes a new
 * one. A node on another machine cannot use these disks: it sees neither the files nor the loop
 * devices (docs/real-nodes.md says what to do instead).
 */
import { type Host, isHostError } from "../../../host/host.ts";
import { CloudDiskError, checkExclusiveAttach, type DiskContentSource } from "../../../host/sim/world/disk-provider.ts";
import type { Clock } from "../../../runtime/clock.ts";
import {
  detachLoopDevices,
  ensureLoopDevice,
  loopDevicesOf,
  refreshLoopDeviceSizes,
  releaseLoopDevice,
} from "../common/loop-devices.ts";
import type { DiskAttachmentView, DiskBackend, DiskView, SnapshotView } from "./disk-backend.ts";
import { DiskStateFiles, withAttachments } from "./disk-state-file.ts";
import { copyImage, LoopDiskSnapshots } from "./loop-disk-snapshots.ts";
import { fenceOffsetBytes, isFenced, type LoopDeviceState, loopDeviceState, setLoopOffset } from "./loop-fence.ts";
import { nodeLinksDir, nodeLinksDirName, nodeLoopDevices } from "./node-loop-devices.ts";

interface LoopDiskBackendOptions {
  host: Host;
  /** Where the disks' files and records live (`DATA/disks`, or the driver's state directory). */
  disksDir: string;
  /** Dates snapshots; without it the backend refuses to take them. */
  clock?: Clock;
  /**
   * Attach through a loop device per disk and node, over the node's hard link of the disk's file,
   * so node fencing can make one node's devices fail every I/O (`fenceNode`). Needs the loop
   * driver and perl (loop-fence.ts). Off by default.
   */
  fenceable?: boolean;
}

/** The file in a node's links directory that says the node is fenced. */
const fenceMarkName = "fenced";

export class LoopDiskBackend implements DiskBackend {
  private readonly files: DiskStateFiles;
  private readonly snapshots: LoopDiskSnapshots;
  private readonly host: Host;
  /** The last operation queued on each disk: calls on one disk run one after another. */
  private readonly queues = new Map<string, Promise<unknown>>();

  readonly fenceable: boolean;

  constructor(options: LoopDiskBackendOptions) {
    this.host = options.host;
    this.fenceable = options.fenceable ?? false;
    this.files = new DiskStateFiles(options.host, options.disksDir);
    this.snapshots = new LoopDiskSnapshots(options.host, options.disksDir, options.clock);
  }

  get disksDir(): string {
    return this.files.disksDir;
  }

  /** The sparse file behind disk `id`. */
  imagePath(id: string): string {
    return this.files.imagePath(id);
  }

  createDisk(
    id: string,
    sizeBytes: number,
    options: { zone?: string; multiAttach?: boolean; source?: DiskContentSource },
  ): Promise<DiskView> {
    return this.serially(id, async () => {
      if ((await this.files.read(id)) !== undefined) {
        throw new CloudDiskError("AlreadyExists", `disk ${id} already exists`);
      }
      const sourceImage = options.source === undefined ? undefined : await this.sourceImage(options.source, sizeBytes);
      const disk: DiskView = {
        id,
        sizeBytes,
        zone: options.zone,
        multiAttach: options.multiAttach ?? false,
        attachments: new Map(),
      };
      // An image without a record is a create that was interrupted: no one can have used it.
      await this.files.ensureDisksDir();
      if (sourceImage === undefined) await this.host.createSparseFile(this.files.imagePath(id), sizeBytes);
      else await this.copyGrown(sourceImage, this.files.imagePath(id), sizeBytes);
      await this.files.write(disk);
      return disk;
    });
  }

  /** The image a new disk copies, checked to fit in `sizeBytes`. */
  private async sourceImage(source: DiskContentSource, sizeBytes: number): Promise<string> {
    const [kind, id, size, image] =
      "snapshotId" in source
        ? [
            "snapshot",
            source.snapshotId,
            (await this.snapshots.get(source.snapshotId)).sizeBytes,
            this.snapshots.imagePath(source.snapshotId),
          ]
        : ["disk", source.diskId, (await this.existing(source.diskId)).sizeBytes, this.files.imagePath(source.diskId)];
    if (size > sizeBytes) {
      throw new CloudDiskError("TooSmall", `a disk of ${sizeBytes} bytes cannot hold ${kind} ${id} of ${size} bytes`);
    }
    return image;
  }

  /** Copies an image and grows the copy to `sizeBytes` (the filesystem inside keeps its size until resized). */
  private async copyGrown(from: string, to: string, sizeBytes: number): Promise<void> {
    await copyImage(this.host, from, to);
    const result = await this.host.run("truncate", ["-s", String(sizeBytes), to]);
    if (result.exitCode !== 0) throw new Error(`truncate ${to} failed: ${result.output.trim()}`);
  }

  createSnapshot(id: string, sourceDiskId: string): Promise<SnapshotView> {
    return this.serially(sourceDiskId, async () => {
      const disk = await this.existing(sourceDiskId);
      return this.snapshots.create(id, sourceDiskId, this.files.imagePath(sourceDiskId), disk.sizeBytes);
    });
  }

  snapshot(id: string): Promise<SnapshotView> {
    return this.snapshots.get(id);
  }

  async hasSnapshot(id: string): Promise<boolean> {
    return (await this.snapshots.read(id)) !== undefined;
  }

  listSnapshots(): Promise<readonly SnapshotView[]> {
    return this.snapshots.list();
  }

  deleteSnapshot(id: string): Promise<void> {
    return this.snapshots.remove(id);
  }

  disk(id: string): Promise<DiskView> {
    return this.existing(id);
  }

  async has(id: string): Promise<boolean> {
    this.files.checkedId(id);
    return (await this.files.read(id)) !== undefined;
  }

  async list(): Promise<readonly DiskView[]> {
    const disks: DiskView[] = [];
    for (const id of await this.files.ids()) {
      const disk = await this.files.read(id);
      if (disk !== undefined) disks.push(disk);
    }
    return disks;
  }

  deleteDisk(id: string): Promise<void> {
    return this.serially(id, async () => {
      const disk = await this.existing(id);
      if (disk.attachments.size > 0) {
        const nodes = [...disk.attachments.keys()].join(", ");
        throw new CloudDiskError(
          "StillAttached",
          `disk ${id} is still attached to ${nodes}; detach it before deleting`,
        );
      }
      const image = this.files.imagePath(id);
      await detachLoopDevices(this.host, image);
      await this.removeNodeLinks(id);
      await this.files.remove(id);
      await this.host.unlink(image);
    });
  }

  /** Removes disk `id`'s link in every node's directory (fenceable attachments made them). */
  private async removeNodeLinks(id: string): Promise<void> {
    for (const nodeName of await this.linkedNodes()) {
      try {
        await this.host.unlink(this.nodeLink(id, nodeName));
      } catch (error) {
        if (!isHostError(error, "ENOENT")) throw error;
      }
    }
  }

  /** The nodes that have a directory of links. */
  private async linkedNodes(): Promise<string[]> {
    try {
      return await this.host.readdir(`${this.disksDir}/${nodeLinksDirName}`);
    } catch (error) {
      if (isHostError(error, "ENOENT")) return [];
      throw error;
    }
  }

  /** Node `nodeName`'s hard link of disk `id`'s file. */
  private nodeLink(id: string, nodeName: string): string {
    return `${nodeLinksDir(this.disksDir, nodeName)}/${id}.img`;
  }

  /**
   * Grows the disk: the sparse file is extended (its bytes kept) and its loop device, if attached,
   * re-reads the size (`losetup -c`), as a cloud disk grows under a running node. Never shrinks.
   */
  expandDisk(id: string, sizeBytes: number): Promise<DiskView> {
    return this.serially(id, async () => {
      const disk = await this.existing(id);
      if (sizeBytes <= disk.sizeBytes) return disk;
      const image = this.files.imagePath(id);
      await this.host.createSparseFile(image, sizeBytes);
      await refreshLoopDeviceSizes(this.host, image);
      const grown: DiskView = { ...disk, sizeBytes };
      await this.files.write(grown);
      return grown;
    });
  }

  /** Attaches the disk to `nodeName`; resolves with the loop device's path (fenceable: the node's own). */
  attach(id: string, nodeName: string, options: { readOnly?: boolean }): Promise<string> {
    return this.serially(id, async () => {
      const disk = await this.existing(id);
      const readOnly = options.readOnly ?? false;
      if (!disk.attachments.has(nodeName)) checkExclusiveAttach(disk, nodeName, readOnly);
      const device = await this.nodeDevice(id, nodeName);
      if (!disk.attachments.has(nodeName)) {
        const attachment: DiskAttachmentView = { nodeName, readOnly };
        await this.files.write(withAttachments(disk, [...disk.attachments.values(), attachment]));
      }
      return device;
    });
  }

  /** The device a node uses: the disk's shared loop device, or (fenceable) the node's own. */
  private async nodeDevice(id: string, nodeName: string): Promise<string> {
    const image = this.files.imagePath(id);
    if (!this.fenceable) return ensureLoopDevice(this.host, image);
    const link = await this.ensureNodeLink(id, nodeName);
    const [existing] = await nodeLoopDevices(this.host, image, link);
    const device = existing ?? (await ensureLoopDevice(this.host, link, { reuse: false }));
    // Checked after binding: a fence in another process marks the node before it looks for devices,
    // so a device bound meanwhile is either found by the fence or fenced here.
    if (await this.isMarkedFenced(nodeName)) await setLoopOffset(this.host, device, fenceOffsetBytes);
    return device;
  }

  /** The mark of a fenced node (`nodes/<node>/fenced`), which every process sharing the disks sees. */
  private fenceMark(nodeName: string): string {
    return `${nodeLinksDir(this.disksDir, nodeName)}/${fenceMarkName}`;
  }

  private async isMarkedFenced(nodeName: string): Promise<boolean> {
    try {
      await this.host.stat(this.fenceMark(nodeName));
      return true;
    } catch (error) {
      if (isHostError(error, "ENOENT")) return false;
      throw error;
    }
  }

  /** Makes node `nodeName`'s hard link of disk `id`'s file unless it is there; returns its path. */
  private async ensureNodeLink(id: string, nodeName: string): Promise<string> {
    const link = this.nodeLink(id, nodeName);
    try {
      await this.host.stat(link);
      return link;
    } catch (error) {
      if (!isHostError(error, "ENOENT")) throw error;
    }
    await this.host.mkdir(nodeLinksDir(this.disksDir, nodeName), 0o700, { recursive: true });
    const linked = await this.host.run("ln", [this.files.imagePath(id), link]);
    if (linked.exitCode !== 0)
      throw new Error(`ln ${this.files.imagePath(id)} ${link} failed: ${linked.output.trim()}`);
    return link;
  }

  /** The loop devices of `nodeName` over disk `id` (fenceable: its own, bound over its link). */
  private nodeDevices(id: string, nodeName: string): Promise<string[]> {
    return nodeLoopDevices(this.host, this.files.imagePath(id), this.nodeLink(id, nodeName));
  }

  /**
   * Fences `nodeName`: every loop device it has over a disk gets the fence's offset, past the
   * disk's end, so every read and write the node makes on it fails with EIO (loop-fence.ts) —
   * devices of attachments and any an interrupted attach left. The node is marked fenced first, so
   * a device an attach binds for it later (in this process or another) is fenced at birth. Returns
   * each device's state read back, so the caller can confirm. Only for a fenceable backend.
   */
  async fenceNode(nodeName: string): Promise<LoopDeviceState[]> {
    if (!this.fenceable)
      throw new Error("these disks are not attached through a loop device per node: they cannot be fenced");
    await this.host.mkdir(nodeLinksDir(this.disksDir, nodeName), 0o700, { recursive: true });
    await this.host.writeFile(this.fenceMark(nodeName), "fenced\n");
    const fenced: LoopDeviceState[] = [];
    for (const disk of await this.list()) {
      await this.serially(disk.id, async () => {
        for (const device of await this.nodeDevices(disk.id, nodeName)) {
          const state = await this.fenceDevice(device);
          if (state !== undefined) fenced.push(state);
        }
      });
    }
    return fenced;
  }

  /**
   * Fences one device and reads it back; undefined when the kernel released it meanwhile (a
   * detached device whose stale mount just let go): a device that no longer exists writes nothing.
   */
  private async fenceDevice(device: string): Promise<LoopDeviceState | undefined> {
    try {
      await setLoopOffset(this.host, device, fenceOffsetBytes);
    } catch (error) {
      if ((await loopDeviceState(this.host, device)) === undefined) return undefined;
      throw error;
    }
    return loopDeviceState(this.host, device);
  }

  /** Lifts `fenceNode`: the mark goes, and the node's devices still bound get their offset back (0). */
  async unfenceNode(nodeName: string): Promise<void> {
    if (!this.fenceable) return;
    try {
      await this.host.unlink(this.fenceMark(nodeName));
    } catch (error) {
      if (!isHostError(error, "ENOENT")) throw error;
    }
    for (const disk of await this.list()) {
      await this.serially(disk.id, async () => {
        for (const device of await this.nodeDevices(disk.id, nodeName)) {
          if (isFenced(await loopDeviceState(this.host, device))) await setLoopOffset(this.host, device, "0");
        }
      });
    }
  }

  /**
   * The loop devices `nodeName` still has over a disk (what a fenced node still holds): a detached
   * one stays until the node's stale mount lets it go.
   */
  async devicesHeldBy(nodeName: string): Promise<string[]> {
    if (!this.fenceable) return [];
    const held: string[] = [];
    for (const disk of await this.list()) held.push(...(await this.nodeDevices(disk.id, nodeName)));
    return held;
  }

  /**
   * Detaches from `nodeName`. Fenceable: its own loop devices are released first — one still held
   * by a fenced node's stale mount goes when it is let go (the kernel's autoclear) — and with the
   * disk's last attachment every loop device over it (any an interrupted attach left).
   */
  detach(id: string, nodeName: string): Promise<void> {
    return this.serially(id, async () => {
      const disk = await this.existing(id);
      if (this.fenceable) {
        for (const device of await this.nodeDevices(id, nodeName)) await releaseLoopDevice(this.host, device);
      }
      const others = [...disk.attachments.values()].filter((attachment) => attachment.nodeName !== nodeName);
      if (others.length === 0) await detachLoopDevices(this.host, this.files.imagePath(id));
      if (disk.attachments.has(nodeName)) await this.files.write(withAttachments(disk, others));
    });
  }

  /** The loop device of a disk attached to `nodeName`, made again when the machine lost it. */
  attachedDevice(id: string, nodeName: string): Promise<string> {
    return this.serially(id, async () => {
      const disk = await this.existing(id);
      if (!disk.attachments.has(nodeName)) {
        throw new CloudDiskError("NotFound", `disk ${id} is not attached to node ${nodeName}`);
      }
      return this.nodeDevice(id, nodeName);
    });
  }

  /** The loop devices over disk `id`'s file now (for tests and leak checks). */
  loopDevicesOf(id: string): Promise<string[]> {
    return loopDevicesOf(this.host, this.files.imagePath(id));
  }

  private async existing(id: string): Promise<DiskView> {
    const disk = await this.files.read(id);
    if (disk === undefined) throw new CloudDiskError("NotFound", `disk ${id} not found`);
    return disk;
  }

  /** Runs `operation` after every operation queued before it on the same disk. */
  private serially<T>(id: string, operation: () => Promise<T>): Promise<T> {
    this.files.checkedId(id);
    const previous = this.queues.get(id) ?? Promise.resolve();
    const result = previous.then(operation, operation);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(id, settled);
    void settled.then(() => {
      if (this.queues.get(id) === settled) this.queues.delete(id);
    });
    return result;
  }
}
