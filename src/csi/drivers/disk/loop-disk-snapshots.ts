/**
 * Snapshots of LoopDiskBackend's disks: each a copy of the disk's sparse file,
 * `<disksDir>/snapshots/<id>.img`, beside its record `<id>.json` — made with
 * `cp --reflink=auto --sparse=always`, so on a filesystem that shares extents (btrfs, xfs) a snapshot
 * costs no space until the disk changes, and elsewhere holes stay holes. A restore or a clone is the
 * same copy the other way, the file then grown to the new disk's size.
 *
 * The record is written after the copy: a copy interrupted half-way left an image without a record,
 * which no one lists and the next CreateSnapshot of that id overwrites.
 */

import { posix } from "node:path";
import { type Host, isHostError } from "../../../host/host.ts";
import { readTextIfExists } from "../../../host/read-text-if-exists.ts";
import { CloudDiskError } from "../../../host/sim/world/disk-provider.ts";
import type { Clock } from "../../../runtime/clock.ts";
import type { SnapshotView } from "./disk-backend.ts";

const snapshotsDirName = "snapshots";
const snapshotFileMode = 0o600;
const snapshotsDirMode = 0o750;
const snapshotIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export class LoopDiskSnapshots {
  readonly dir: string;

  constructor(
    private readonly host: Host,
    disksDir: string,
    private readonly clock: Clock | undefined,
  ) {
    this.dir = posix.join(disksDir, snapshotsDirName);
  }

  imagePath(id: string): string {
    return posix.join(this.dir, `${checkedId(id)}.img`);
  }

  private recordPath(id: string): string {
    return posix.join(this.dir, `${checkedId(id)}.json`);
  }

  /** Copies the disk image `sourceImage` (of `sourceDiskId`, `sizeBytes` long) into a new snapshot. */
  async create(id: string, sourceDiskId: string, sourceImage: string, sizeBytes: number): Promise<SnapshotView> {
    if (this.clock === undefined) throw new Error("LoopDiskBackend takes snapshots only with a clock to date them");
    if ((await this.read(id)) !== undefined) throw new CloudDiskError("AlreadyExists", `snapshot ${id} already exists`);
    await this.host.mkdir(this.dir, snapshotsDirMode, { recursive: true });
    // The copy may grow to the whole image: refuse before it fills the filesystem half-way.
    const { freeBytes } = await this.host.statfs(this.dir);
    if (sizeBytes > freeBytes) {
      throw new CloudDiskError(
        "NoSpace",
        `not enough space for snapshot ${id} of disk ${sourceDiskId}: it holds ${sizeBytes} bytes, but only ${freeBytes} bytes are free in ${this.dir}`,
      );
    }
    await copyImage(this.host, sourceImage, this.imagePath(id));
    const snapshot: SnapshotView = {
      id,
      sourceDiskId,
      sizeBytes,
      creationTimeMs: this.clock.now(),
      readyToUse: true,
    };
    const temporary = `${this.recordPath(id)}.tmp`;
    await this.host.writeFile(temporary, `${JSON.stringify(snapshot)}\n`, snapshotFileMode);
    await this.host.rename(temporary, this.recordPath(id));
    return snapshot;
  }

  async read(id: string): Promise<SnapshotView | undefined> {
    const path = this.recordPath(id);
    const text = await readTextIfExists(this.host, path);
    return text === undefined ? undefined : parseSnapshot(text, path);
  }

  async get(id: string): Promise<SnapshotView> {
    const snapshot = await this.read(id);
    if (snapshot === undefined) throw new CloudDiskError("NotFound", `snapshot ${id} not found`);
    return snapshot;
  }

  async list(): Promise<SnapshotView[]> {
    let names: string[];
    try {
      names = await this.host.readdir(this.dir);
    } catch (error) {
      if (isHostError(error, "ENOENT")) return [];
      throw error;
    }
    const found: SnapshotView[] = [];
    for (const name of names.filter((entry) => entry.endsWith(".json")).sort()) {
      const snapshot = await this.read(name.slice(0, -".json".length));
      if (snapshot !== undefined) found.push(snapshot);
    }
    return found;
  }

  async remove(id: string): Promise<void> {
    for (const path of [this.recordPath(id), this.imagePath(id)]) {
      try {
        await this.host.unlink(path);
      } catch (error) {
        if (!isHostError(error, "ENOENT")) throw error;
      }
    }
  }
}

/** Copies a disk image, sharing extents where the filesystem can and keeping holes. */
export async function copyImage(host: Host, from: string, to: string): Promise<void> {
  const result = await host.run("cp", ["--reflink=auto", "--sparse=always", from, to]);
  if (result.exitCode !== 0) {
    throw new Error(`cp ${from} ${to} failed (exit status ${result.exitCode}): ${result.output.trim()}`);
  }
}

function checkedId(id: string): string {
  if (!snapshotIdPattern.test(id)) throw new CloudDiskError("NotFound", `snapshot ${id} not found: not a valid id`);
  return id;
}

function parseSnapshot(text: string, path: string): SnapshotView {
  const parsed = JSON.parse(text) as Partial<SnapshotView> | null;
  if (
    typeof parsed?.id !== "string" ||
    typeof parsed.sourceDiskId !== "string" ||
    typeof parsed.sizeBytes !== "number" ||
    typeof parsed.creationTimeMs !== "number"
  ) {
    throw new Error(`snapshot record ${path} is not valid; remove it and its image to forget the snapshot`);
  }
  return { ...(parsed as SnapshotView), readyToUse: true };
}
