/**
 * The volumes a driver's controller has created, and where ControllerPublish has published them.
 * The catalog is the driver's memory across calls (and, in a file, across restarts); the data of a
 * volume lives elsewhere (a directory, a sparse file). Records handed out are copies: changing one
 * changes nothing until it is `put` back.
 *
 * Two implementations: `MemoryVolumeCatalog`, which one simulated cluster shares between a driver's
 * controller and its node plugins (they then agree on every volume without a file), and
 * `HostFileVolumeCatalog` (host-file-catalog.ts), a JSON file in the driver's state directory.
 */
import type { StringMap } from "../../proto/types.ts";
import type { AccessType } from "./volume-capabilities.ts";

interface VolumePublication {
  nodeId: string;
  readonly: boolean;
  /** True when published with a single-node access mode: no other node may then have it. */
  singleNode: boolean;
}

export interface VolumeRecord {
  volumeId: string;
  /** CreateVolume's name: the idempotency key. */
  name: string;
  capacityBytes: number;
  accessType: AccessType;
  /** CreateVolume's parameters (from the StorageClass); a repeated request must send the same. */
  parameters: StringMap;
  /** For a node-local volume, the node holding its data. */
  nodeId?: string;
  /** What the volume was created from (CreateVolume's volume_content_source): a restore or a clone. */
  contentSource?: { snapshotId: string } | { volumeId: string };
  publications: VolumePublication[];
}

export interface VolumeCatalog {
  get(volumeId: string): Promise<VolumeRecord | undefined>;
  findByName(name: string): Promise<VolumeRecord | undefined>;
  /** Every volume, ordered by volume id (ListVolumes pages through this order). */
  list(): Promise<VolumeRecord[]>;
  /** Adds or replaces the record with this volume id. */
  put(record: VolumeRecord): Promise<void>;
  /** Forgets a volume; forgetting an unknown id is not an error. */
  remove(volumeId: string): Promise<void>;
}

export function copyRecord(record: VolumeRecord): VolumeRecord {
  return structuredClone(record);
}

export function compareVolumeIds(a: VolumeRecord, b: VolumeRecord): number {
  return a.volumeId < b.volumeId ? -1 : a.volumeId > b.volumeId ? 1 : 0;
}

export class MemoryVolumeCatalog implements VolumeCatalog {
  private readonly records = new Map<string, VolumeRecord>();

  async get(volumeId: string): Promise<VolumeRecord | undefined> {
    const record = this.records.get(volumeId);
    return record === undefined ? undefined : copyRecord(record);
  }

  async findByName(name: string): Promise<VolumeRecord | undefined> {
    for (const record of this.records.values()) if (record.name === name) return copyRecord(record);
    return undefined;
  }

  async list(): Promise<VolumeRecord[]> {
    return [...this.records.values()].map(copyRecord).sort(compareVolumeIds);
  }

  async put(record: VolumeRecord): Promise<void> {
    this.records.set(record.volumeId, copyRecord(record));
  }

  async remove(volumeId: string): Promise<void> {
    this.records.delete(volumeId);
  }
}
