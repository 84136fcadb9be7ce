/**
 * The snapshots of a hostpath-style driver, on the Host beside its volumes: a snapshot is a copy of
 * the volume's data (`cp -a`: the directory, or a block volume's sparse file) at
 * `<stateDir>/snapshots/<snapshotId>`, and its record `<snapshotId>.json` (name, source volume,
 * size, creation time). The record is written last, so a snapshot exists once it is complete; a
 * copy interrupted by a crash is replaced by the next CreateSnapshot of the same name. Like the
 * volumes, snapshots survive a restart of the driver process.
 */

import { posix } from "node:path";
import { type Host, isHostError } from "../../../host/host.ts";
import { readTextIfExists } from "../../../host/read-text-if-exists.ts";
import type { Clock } from "../../../runtime/clock.ts";
import { CsiError } from "../../grpc/errors.ts";
import { volumeTreeEntriesMax } from "./constants.ts";
import { step } from "./host-failures.ts";
import { isPresent } from "./host-paths.ts";
import type { SnapshotFacts } from "./snapshot-rpcs.ts";
import type { AccessType } from "./volume-capabilities.ts";
import type { VolumeRecord } from "./volume-catalog.ts";
import { removeTree } from "./volume-tree.ts";

const snapshotsDirName = "snapshots";
const snapshotsDirMode = 0o750;
const recordFileMode = 0o600;
const recordSuffix = ".json";

/** What the driver keeps of one snapshot. */
export interface SnapshotRecord {
  snapshotId: string;
  /** CreateSnapshot's name: the idempotency key. */
  name: string;
  sourceVolumeId: string;
  /** The source volume's capacity: the smallest volume it can be restored into. */
  sizeBytes: number;
  creationTimeMs: number;
  accessType: AccessType;
  /** The node holding the copy (node-local volumes). */
  nodeId?: string;
}

export function factsOfSnapshot(record: SnapshotRecord): SnapshotFacts {
  return {
    id: record.snapshotId,
    sourceVolumeId: record.sourceVolumeId,
    sizeBytes: record.sizeBytes,
    creationTimeMs: record.creationTimeMs,
    readyToUse: true,
  };
}

export class HostSnapshotStore {
  private readonly dir: string;

  constructor(
    private readonly host: Host,
    stateDir: string,
    private readonly clock: Clock,
  ) {
    this.dir = posix.join(stateDir, snapshotsDirName);
  }

  /** Where the snapshot's copy of the data is. */
  dataPath(snapshotId: string): string {
    return posix.join(this.dir, snapshotId);
  }

  async get(snapshotId: string): Promise<SnapshotRecord | undefined> {
    const path = this.recordPath(snapshotId);
    const text = await readTextIfExists(this.host, path);
    return text === undefined ? undefined : parseRecord(text, path);
  }

  /** Every complete snapshot. */
  async list(): Promise<SnapshotRecord[]> {
    let names: string[];
    try {
      names = await this.host.readdir(this.dir);
    } catch (error) {
      if (isHostError(error, "ENOENT")) return [];
      throw error;
    }
    const records: SnapshotRecord[] = [];
    for (const name of names.filter((entry) => entry.endsWith(recordSuffix)).sort()) {
      const record = await this.get(name.slice(0, -recordSuffix.length));
      if (record !== undefined) records.push(record);
    }
    return records;
  }

  /** Copies the volume's data at `volumePath` and records the snapshot. */
  async create(snapshotId: string, name: string, volume: VolumeRecord, volumePath: string): Promise<SnapshotRecord> {
    const dataPath = this.dataPath(snapshotId);
    await step(`CreateSnapshot: copying ${volumePath} to ${dataPath}`, async () => {
      await this.host.mkdir(this.dir, snapshotsDirMode, { recursive: true });
      await this.removeData(snapshotId);
      await this.checkSpaceFor(volume);
      await this.host.copyTree(volumePath, dataPath);
    });
    const record: SnapshotRecord = {
      snapshotId,
      name,
      sourceVolumeId: volume.volumeId,
      sizeBytes: volume.capacityBytes,
      creationTimeMs: this.clock.now(),
      accessType: volume.accessType,
      ...(volume.nodeId === undefined ? {} : { nodeId: volume.nodeId }),
    };
    const path = this.recordPath(snapshotId);
    await step(`CreateSnapshot: writing ${path}`, async () => {
      await this.host.writeFile(`${path}.tmp`, `${JSON.stringify(record, null, 2)}\n`, recordFileMode);
      await this.host.rename(`${path}.tmp`, path);
    });
    return record;
  }

  /**
   * RESOURCE_EXHAUSTED, as the spec asks, when the snapshots folder's filesystem has less room than
   * the volume may hold: the copy would fill the filesystem and fail half-way.
   */
  private async checkSpaceFor(volume: VolumeRecord): Promise<void> {
    const { freeBytes } = await this.host.statfs(this.dir);
    if (volume.capacityBytes > freeBytes) {
      throw new CsiError(
        "ResourceExhausted",
        `CreateSnapshot: not enough space for a snapshot of volume ${volume.volumeId}: it holds up to ${volume.capacityBytes} bytes, but only ${freeBytes} bytes are free in ${this.dir}`,
      );
    }
  }

  /** Forgets the snapshot, then deletes its copy; an unknown id is not an error. */
  async remove(snapshotId: string): Promise<void> {
    const path = this.recordPath(snapshotId);
    await step(`DeleteSnapshot: deleting ${path}`, async () => {
      if (await isPresent(this.host, path)) await this.host.unlink(path);
      await this.removeData(snapshotId);
    });
  }

  private async removeData(snapshotId: string): Promise<void> {
    const dataPath = this.dataPath(snapshotId);
    if (await isPresent(this.host, dataPath)) await removeTree(this.host, dataPath, volumeTreeEntriesMax);
  }

  private recordPath(snapshotId: string): string {
    return posix.join(this.dir, `${snapshotId}${recordSuffix}`);
  }
}

function parseRecord(text: string, path: string): SnapshotRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`snapshot record ${path} is not valid JSON (${String(error)}); remove it with its snapshot`);
  }
  const record = parsed as Partial<SnapshotRecord> | null;
  if (
    typeof record?.snapshotId !== "string" ||
    typeof record.name !== "string" ||
    typeof record.sourceVolumeId !== "string" ||
    typeof record.sizeBytes !== "number" ||
    typeof record.creationTimeMs !== "number" ||
    (record.accessType !== "mount" && record.accessType !== "block")
  ) {
    throw new Error(
      `snapshot record ${path} lacks snapshotId, name, sourceVolumeId, sizeBytes, creationTimeMs or accessType`,
    );
  }
  return record as SnapshotRecord;
}
