/**
 * What a block device holds: raw bytes until mkfs puts a filesystem on it, then that filesystem. The
 * same BlockStorage travels with a cloud disk from node to node and with an RBD image between
 * mappings, so data written on one node is found on the next. Injected faults (mkfs failing, fsck
 * finding errors) live here too, because they belong to the medium, not to the node.
 */
import { SimFilesystem } from "./filesystem.ts";
import { fsckCleanExitStatus } from "./sim-constants.ts";

export type FormattedContent = {
  readonly kind: "filesystem";
  readonly fsType: string;
  readonly fs: SimFilesystem;
  readonly uuid: string;
};

export type StorageContent = { readonly kind: "raw" } | FormattedContent;

interface StorageFaults {
  /** When set, mkfs on this storage exits 1 printing this text (a bad sector, a read-only disk). */
  mkfsFailureOutput?: string;
  /** What `fsck -a` reports: 0 clean, 1 errors corrected, 4 errors left uncorrected. */
  fsckExitStatus: number;
  fsckOutput: string;
}

export class BlockStorage {
  content: StorageContent = { kind: "raw" };
  /** A partition table (`gpt`, `dos`) makes blkid report PTTYPE, and mount-utils refuses to format. */
  partitionTable: string | undefined;
  readonly faults: StorageFaults = { fsckExitStatus: fsckCleanExitStatus, fsckOutput: "" };

  private size: number;

  constructor(sizeBytes: number) {
    if (!Number.isSafeInteger(sizeBytes) || sizeBytes <= 0) {
      throw new RangeError(`BlockStorage: sizeBytes must be a positive integer, got ${sizeBytes}`);
    }
    this.size = sizeBytes;
  }

  get sizeBytes(): number {
    return this.size;
  }

  /**
   * The medium grows (a cloud disk resized, a loop device's backing file extended and re-read with
   * `losetup -c`); the filesystem on it keeps its size until resize2fs or xfs_growfs grows it.
   */
  grow(sizeBytes: number): void {
    if (!Number.isSafeInteger(sizeBytes) || sizeBytes < this.size) {
      throw new RangeError(`BlockStorage.grow: ${sizeBytes} is not a size of at least ${this.size} bytes`);
    }
    this.size = sizeBytes;
  }

  /** Puts a new, empty filesystem on the storage; whatever was there before is gone. */
  format(fsType: string, uuid: string): FormattedContent {
    const content: FormattedContent = {
      kind: "filesystem",
      fsType,
      fs: new SimFilesystem({ sizeLimitBytes: this.sizeBytes }),
      uuid,
    };
    this.content = content;
    this.partitionTable = undefined;
    return content;
  }

  get fsType(): string | undefined {
    return this.content.kind === "filesystem" ? this.content.fsType : undefined;
  }
}
