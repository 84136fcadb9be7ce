/**
 * A DiskProvider for controller tests: remembers the disks made, can mark one attached (so deleting
 * it fails as a cloud provider's does) and can refuse the next creations.
 */
import type { DiskCreateOptions, DiskProvider } from "../disk-provider.ts";

interface MemoryDisk {
  id: string;
  sizeBytes: number;
  options: DiskCreateOptions;
  attachedTo: string | undefined;
}

/** The provider's "still attached" refusal, with the `code` the provisioner recognises. */
class StillAttachedError extends Error {
  readonly code = "StillAttached";
}

export class MemoryDisks implements DiskProvider {
  readonly disks = new Map<string, MemoryDisk>();
  /** createDisk calls so far, failed ones included. */
  createCalls = 0;
  private createFailures: string[] = [];

  createDisk(id: string, sizeBytes: number, options: DiskCreateOptions = {}): MemoryDisk {
    this.createCalls++;
    const failure = this.createFailures.shift();
    if (failure !== undefined) throw new Error(failure);
    if (this.disks.has(id)) throw new Error(`disk ${id} already exists`);
    const disk = { id, sizeBytes, options, attachedTo: undefined };
    this.disks.set(id, disk);
    return disk;
  }

  deleteDisk(id: string): void {
    const disk = this.disks.get(id);
    if (disk === undefined) throw new Error(`disk ${id} not found`);
    if (disk.attachedTo !== undefined) {
      throw new StillAttachedError(`disk ${id} is still attached to ${disk.attachedTo}; detach it before deleting`);
    }
    this.disks.delete(id);
  }

  has(id: string): boolean {
    return this.disks.has(id);
  }

  /** The next `times` createDisk calls fail with `message`. */
  failCreates(times: number, message: string): void {
    for (let i = 0; i < times; i++) this.createFailures.push(message);
  }

  attach(id: string, nodeName: string | undefined): void {
    const disk = this.disks.get(id);
    if (disk === undefined) throw new Error(`disk ${id} not found`);
    disk.attachedTo = nodeName;
  }
}
