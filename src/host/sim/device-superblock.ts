/**
 * The superblock of a filesystem on a block device (a disk, a loop device, an RBD image), as one
 * node's kernel holds it. A class rather than an object literal with two closures: a node holds one
 * per mounted disk, and its hooks as methods cost nothing per superblock, its number, type and
 * filesystem are read from the device and the content rather than copied.
 */
import type { FormattedContent } from "./block-storage.ts";
import type { BlockDevice, BlockDeviceTable } from "./devices.ts";
import type { SimFilesystem } from "./filesystem.ts";
import type { Cancellation } from "./sim-wait.ts";
import type { Superblock } from "./superblock.ts";

/** The node's kernel, which knows whether a device can be read now. */
export interface DeviceReachability {
  /** Throws the errno a read of the device gets now (EIO once it is gone or fenced). */
  checkDeviceReachable(device: BlockDevice, syscall: string, path: string): void;
}

/** The boot the superblock belongs to. */
export interface DeviceSuperblockBoot {
  /** This boot's shared device superblocks, by filesystem. */
  readonly deviceSuperblocks: Map<SimFilesystem, Superblock>;
  readonly devices: BlockDeviceTable;
}

export class DeviceSuperblock implements Superblock {
  constructor(
    readonly device: BlockDevice,
    private readonly content: FormattedContent,
    readonly source: string,
    readonly superOptions: readonly string[],
    private readonly kernel: DeviceReachability,
    private readonly boot: DeviceSuperblockBoot,
  ) {}

  get dev(): number {
    return this.device.rdev;
  }

  get majorMinor(): string {
    return this.device.majorMinor;
  }

  get fs(): SimFilesystem {
    return this.content.fs;
  }

  get fsType(): string {
    return this.content.fsType;
  }

  /** Each access fails with EIO once the device is gone (detached) or fenced. */
  async accessCheck(_cancellation: Cancellation, syscall: string, path: string): Promise<void> {
    this.kernel.checkDeviceReachable(this.device, syscall, path);
  }

  /** The superblock goes with its last mount, and an autoclear loop device with it. */
  onUnused(): void {
    this.boot.deviceSuperblocks.delete(this.content.fs);
    if (this.device.autoclear) this.boot.devices.remove(this.device);
  }
}
