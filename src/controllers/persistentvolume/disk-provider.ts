/**
 * What the sim-disk provisioner needs of a cloud provider's disk API. The simulated world's
 * CloudDiskProvider (`SimWorld.disks`) has exactly this shape, so it is passed in as it is; the
 * controller never imports host code.
 */

export interface DiskCreateOptions {
  /** The zone the disk lives in; it can only be attached to nodes of that zone. */
  zone?: string;
  /** Allow read-write attachment to several nodes at once. */
  multiAttach?: boolean;
  /** The provider's disk type (`standard`, `ssd`); a provider without types ignores it. */
  diskType?: string;
}

export interface DiskProvider {
  /** Creates a disk; throws when a disk with this id exists. The result is not used. */
  createDisk(id: string, sizeBytes: number, options?: DiskCreateOptions): unknown;
  /** Deletes a disk; throws while it is attached (an error whose `code` is "StillAttached"). */
  deleteDisk(id: string): unknown;
  has(id: string): boolean;
}

/** The provider's "disk is still attached" error (CloudDiskError code StillAttached). */
export function isDiskStillAttachedError(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "StillAttached";
}
