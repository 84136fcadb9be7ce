/**
 * Where a hostpath or fuse volume's data lives: `<stateDir>/<volumeId>` on the controller's host —
 * a directory for a filesystem volume, a sparse file of the volume's capacity for a block volume.
 * The node plugin finds the same path on its own host, so controller and node must run on the
 * node that holds the data (hostpath's node-local topology makes Kubernetes schedule pods there).
 * A volume is not deleted while anything uses it: a bind mount of its directory, a FUSE mount
 * serving it, or a loop device over its file.
 */
import { posix } from "node:path";
import type { Host } from "../../../host/host.ts";
import { getMountRefs } from "../../../host/mount/mount-points.ts";
import { CsiError } from "../../grpc/errors.ts";
import type { VolumeStorage } from "./catalog-controller.ts";
import { volumeDirMode, volumeTreeEntriesMax } from "./constants.ts";
import { step } from "./host-failures.ts";
import { isPresent } from "./host-paths.ts";
import { loopDevicesOf } from "./loop-devices.ts";
import type { VolumeRecord } from "./volume-catalog.ts";
import { removeTree } from "./volume-tree.ts";

const stateDirMode = 0o750;

/** The data path of a volume under a state directory. */
export function volumeDataPath(stateDir: string, volumeId: string): string {
  return posix.join(stateDir, volumeId);
}

export class HostDirectoryStorage implements VolumeStorage {
  constructor(
    private readonly host: Host,
    private readonly stateDir: string,
  ) {}

  async create(record: VolumeRecord): Promise<void> {
    const path = volumeDataPath(this.stateDir, record.volumeId);
    await step(`CreateVolume: creating ${path}`, async () => {
      await this.host.mkdir(this.stateDir, stateDirMode, { recursive: true });
      if (record.accessType === "mount") {
        await this.host.mkdir(path, volumeDirMode, { recursive: true });
      } else if (!(await isPresent(this.host, path))) {
        await this.host.createSparseFile(path, record.capacityBytes);
      }
    });
  }

  /**
   * Creates the volume as a copy of `sourcePath` (a snapshot's copy, or another volume's data: a
   * restore or a clone), then grows a block volume's file to the volume's capacity. A copy left by
   * an interrupted attempt (no catalog record points at it yet) is replaced.
   */
  async createFrom(record: VolumeRecord, sourcePath: string): Promise<void> {
    const path = volumeDataPath(this.stateDir, record.volumeId);
    await step(`CreateVolume: copying ${sourcePath} to ${path}`, async () => {
      await this.host.mkdir(this.stateDir, stateDirMode, { recursive: true });
      if (await isPresent(this.host, path)) await removeTree(this.host, path, volumeTreeEntriesMax);
      await this.host.copyTree(sourcePath, path);
      if (record.accessType === "block") await this.host.createSparseFile(path, record.capacityBytes);
    });
  }

  dataPath(record: VolumeRecord): string {
    return volumeDataPath(this.stateDir, record.volumeId);
  }

  /** A directory has no size to grow; a block volume's sparse file is extended, its bytes kept. */
  async expand(record: VolumeRecord, sizeBytes: number): Promise<void> {
    if (record.accessType !== "block") return;
    const path = volumeDataPath(this.stateDir, record.volumeId);
    await step(`ControllerExpandVolume: growing ${path}`, () => this.host.createSparseFile(path, sizeBytes));
  }

  async remove(record: VolumeRecord): Promise<void> {
    const path = volumeDataPath(this.stateDir, record.volumeId);
    if (!(await step(`DeleteVolume: checking ${path}`, () => isPresent(this.host, path)))) return;
    const users = await step(`DeleteVolume: checking who uses ${path}`, () => this.usersOf(record, path));
    if (users.length > 0) {
      throw new CsiError(
        "FailedPrecondition",
        `DeleteVolume: volume ${record.volumeId} is still in use (${users.join(", ")}); unstage it first`,
      );
    }
    await step(`DeleteVolume: deleting ${path}`, () =>
      record.accessType === "mount" ? removeTree(this.host, path, volumeTreeEntriesMax) : this.host.unlink(path),
    );
  }

  /** Mounts showing the volume's directory (bind mounts, or FUSE mounts serving it), or loop devices over its file. */
  private async usersOf(record: VolumeRecord, path: string): Promise<string[]> {
    if (record.accessType === "block") {
      return (await loopDevicesOf(this.host, path)).map((device) => `attached to ${device}`);
    }
    const served = (await this.host.mountInfo())
      .filter((mount) => mount.source === path)
      .map((mount) => mount.mountPoint);
    const mountPoints = new Set([...(await getMountRefs(this.host, path)), ...served]);
    return [...mountPoints].map((mountPoint) => `mounted at ${mountPoint}`);
  }
}
