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
 * - Crash-safe: attach makes the loop device first and then records the attachment; an attach
 *   killed in between left a loop device that `losetup -j` finds and the next attach reuses, so
 *   there are never two loop devices over one file. Detach releases the loop device first and
 *   then records it; a detach killed in between is finished by the retry. A detach or delete of a
 *   disk with no recorded attachment releases a loop device such an interrupted attach left.
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
import type { Host } from "../../../host/host.ts";
import { CloudDiskError, checkExclusiveAttach, type DiskContentSource } from "../../../host/sim/world/disk-provider.ts";
import type { Clock } from "../../../runtime/clock.ts";
import { detachLoopDevices, ensureLoopDevice, loopDevicesOf, refreshLoopDeviceSizes } from "../common/loop-devices.ts";
import {
  deviceTable,
  ensureLinearDevice,
  fenceableDeviceName,
  fenceableDevicePath,
  removeDevice,
  switchToError,
  switchToLinear,
} from "./device-mapper.ts";
import type { DiskAttachmentView, DiskBackend, DiskView, SnapshotView } from "./disk-backend.ts";
import { DiskStateFiles, withAttachments } from "./disk-state-file.ts";
import { copyImage, LoopDiskSnapshots } from "./loop-disk-snapshots.ts";

interface LoopDiskBackendOptions {
  host: Host;
  /** Where the disks' files and records live (`DATA/disks`, or the driver's state directory). */
  disksDir: string;
  /** Dates snapshots; without it the backend refuses to take them. */
  clock?: Clock;
  /**
   * Attach through a device-mapper device per disk and node (`/dev/mapper/kvol-<node>-<disk>`, a
   * linear table over the loop device) so node fencing can switch it to the error target
   * (`fenceNode`). Needs dmsetup and the kernel's dm driver. Off by default.
   */
  fenceable?: boolean;
}

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
      await this.files.remove(id);
      await this.host.unlink(image);
    });
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

  /** Attaches the disk to `nodeName`; resolves with the loop device's path (fenceable: its dm device's). */
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

  /** The device a node uses: the loop device, or the dm device over it when fenceable. */
  private async nodeDevice(id: string, nodeName: string): Promise<string> {
    const loop = await ensureLoopDevice(this.host, this.files.imagePath(id));
    if (!this.fenceable) return loop;
    return ensureLinearDevice(this.host, fenceableDeviceName(id, nodeName), loop);
  }

  /**
   * Fences `nodeName`: the dm device of every disk attached to it is switched to the error target,
   * so every read and write the node makes on those disks fails with EIO. Returns the devices, each
   * with its live table, so the caller can confirm. Only for a fenceable backend.
   */
  async fenceNode(nodeName: string): Promise<Array<{ device: string; table: string | undefined }>> {
    if (!this.fenceable) throw new Error("these disks are not attached through device-mapper: they cannot be fenced");
    const fenced: Array<{ device: string; table: string | undefined }> = [];
    for (const disk of await this.list()) {
      if (!disk.attachments.has(nodeName)) continue;
      const name = fenceableDeviceName(disk.id, nodeName);
      await this.serially(disk.id, () => switchToError(this.host, name));
      fenced.push({ device: fenceableDevicePath(name), table: await deviceTable(this.host, name) });
    }
    return fenced;
  }

  /** Lifts `fenceNode`: the linear tables are swapped back in. */
  async unfenceNode(nodeName: string): Promise<void> {
    for (const disk of await this.list()) {
      if (!disk.attachments.has(nodeName)) continue;
      const name = fenceableDeviceName(disk.id, nodeName);
      await this.serially(disk.id, async () => {
        const [loop] = await loopDevicesOf(this.host, this.files.imagePath(disk.id));
        if (loop !== undefined && (await deviceTable(this.host, name)) !== undefined) {
          await switchToLinear(this.host, name, loop);
        }
      });
    }
  }

  /** The dm devices of disks still attached to `nodeName` (what a fenced node still holds). */
  async devicesHeldBy(nodeName: string): Promise<string[]> {
    if (!this.fenceable) return [];
    const held: string[] = [];
    for (const disk of await this.list()) {
      const name = fenceableDeviceName(disk.id, nodeName);
      if ((await deviceTable(this.host, name)) !== undefined) held.push(fenceableDevicePath(name));
    }
    return held;
  }

  /** Detaches from `nodeName` (its dm device first); the loop device goes with the disk's last attachment. */
  detach(id: string, nodeName: string): Promise<void> {
    return this.serially(id, async () => {
      const disk = await this.existing(id);
      if (this.fenceable) await removeDevice(this.host, fenceableDeviceName(id, nodeName));
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
