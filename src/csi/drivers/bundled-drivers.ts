/**
 * The drivers kvol ships, by CSI name, for whoever runs one from a name: the `kvol csi-driver`
 * command, a scenario's cluster description.
 */
import type { Host } from "../../host/host.ts";
import { LinuxHost } from "../../host/linux/linux-host.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { BundledDriver } from "./common/bundled-driver.ts";
import {
  defaultDiskStateDir,
  diskDriverName,
  fuseDriverName,
  hostpathDriverName,
  mockDriverName,
} from "./common/constants.ts";
import type { DiskBackend } from "./disk/disk-backend.ts";
import { createDiskDriver } from "./disk/disk-driver.ts";
import { LoopDiskBackend } from "./disk/loop-disk-backend.ts";
import { createFuseDriver } from "./fuse/fuse-driver.ts";
import type { S3fsOptions } from "./fuse/fuse-program.ts";
import type { FuseRecoveryApi } from "./fuse/recovery-api.ts";
import { createHostpathDriver } from "./hostpath/hostpath-driver.ts";
import { MockDriver } from "./mock/mock-driver.ts";

export const bundledDriverNames: readonly string[] = [
  hostpathDriverName,
  fuseDriverName,
  mockDriverName,
  diskDriverName,
];

interface BundledDriverContext {
  host: Host;
  clock: Clock;
  nodeId: string;
  /** The driver's state directory; each driver has its default. */
  stateDir?: string;
  /** The program of fuse.csi.kvol.io's daemons (`bindfs` on a real node). */
  fuseProgram?: string;
  /** fuse.csi.kvol.io serves volumes from prefixes of this bucket with s3fs. */
  s3?: S3fsOptions;
  /** Lets fuse.csi.kvol.io re-establish its mounts after a restart. */
  api?: FuseRecoveryApi;
  /** Where fuse.csi.kvol.io finds the mounts to re-establish (default /var/lib/kubelet). */
  kubeletRootDir?: string;
  onWarning?: (message: string) => void;
  /**
   * The disks disk.csi.kvol.io attaches: the simulated cloud's. Without them, on a LinuxHost, it
   * attaches real disks — sparse files under `stateDir` (default /var/lib/kvol/csi-disk; `kvol up`
   * passes `DATA/disks`) as loop devices.
   */
  disks?: DiskBackend;
  /** The node's zone (disk.csi.kvol.io's topology). */
  zone?: string;
  /** GetCapacity's pool (hostpath, disk): all volumes together may take at most this; default the filesystem's size. */
  capacityLimitBytes?: number;
  /** NodeGetInfo's max_volumes_per_node (0: no limit); each driver has its default (disk 16, the others 0). */
  maxVolumesPerNode?: number;
  /**
   * disk.csi.kvol.io on a LinuxHost: attach each disk through a loop device per node, which node
   * fencing can make fail every I/O (LoopDiskBackend's `fenceable`).
   */
  fenceableDisks?: boolean;
}

/** The driver named `name`, or undefined when kvol ships none of that name. */
export function createBundledDriver(name: string, context: BundledDriverContext): BundledDriver | undefined {
  const { host, clock, nodeId, stateDir } = context;
  const withStateDir = stateDir === undefined ? {} : { stateDir };
  const withLimit = context.capacityLimitBytes === undefined ? {} : { capacityLimitBytes: context.capacityLimitBytes };
  const withMax = context.maxVolumesPerNode === undefined ? {} : { maxVolumesPerNode: context.maxVolumesPerNode };
  switch (name) {
    case hostpathDriverName:
      return createHostpathDriver({ host, clock, nodeId, ...withStateDir, ...withLimit, ...withMax });
    case fuseDriverName:
      return createFuseDriver({
        host,
        clock,
        nodeId,
        ...withStateDir,
        ...withMax,
        ...(context.fuseProgram === undefined ? {} : { fuseProgram: context.fuseProgram }),
        ...(context.s3 === undefined ? {} : { s3: context.s3 }),
        ...(context.api === undefined ? {} : { api: context.api }),
        ...(context.kubeletRootDir === undefined ? {} : { kubeletRootDir: context.kubeletRootDir }),
        ...(context.onWarning === undefined ? {} : { onWarning: context.onWarning }),
      });
    case mockDriverName:
      return new MockDriver({ clock, nodeId, host, ...withMax }).implementations();
    case diskDriverName:
      return createDiskDriver({
        disks: context.disks ?? realDisks(host, stateDir, clock, context.fenceableDisks ?? false),
        host,
        nodeId,
        ...withLimit,
        ...withMax,
        ...(context.disks === undefined ? { disksDir: stateDir ?? defaultDiskStateDir } : {}),
        ...(context.zone === undefined ? {} : { zone: context.zone }),
      });
    default:
      return undefined;
  }
}

/** Real disks on this machine: only a LinuxHost has loop devices to attach them with. */
function realDisks(host: Host, stateDir: string | undefined, clock: Clock, fenceable: boolean): DiskBackend {
  if (!(host instanceof LinuxHost)) {
    throw new Error(
      `${diskDriverName} attaches the simulated cloud's disks inside kvol up and kvol sim, or real disks on a ` +
        "Linux host; this host is neither",
    );
  }
  return new LoopDiskBackend({ host, disksDir: stateDir ?? defaultDiskStateDir, clock, fenceable });
}
