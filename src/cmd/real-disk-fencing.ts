/**
 * Node fencing for the real disks of `kvol up --host linux` (docs/fencing.md): with `--fence-after`
 * on a kernel that has device-mapper, disk.csi.kvol.io's controller and every node's plugin attach
 * each disk through `/dev/mapper/kvol-<node>-<disk>` (`kvol csi-driver --fenceable`), and the
 * node-fencing controller gets the device-mapper fencer over the same disks directory. Without
 * device-mapper the disks attach as plain loop devices and the fencer is registered all the same,
 * so a silent node holding one is refused fencing with the reason on its Node (condition
 * StorageFenced=False) rather than passed over in silence.
 */
import { join } from "node:path";
import type { StorageFencer } from "../controllers/nodefencing/storage-fencer.ts";
import { deviceMapperUnavailable } from "../csi/drivers/disk/device-mapper.ts";
import { DmDiskFencer } from "../csi/drivers/disk/dm-fencer.ts";
import { LoopDiskBackend } from "../csi/drivers/disk/loop-disk-backend.ts";
import type { Host } from "../host/host.ts";
import { disksDirName } from "./bundled-driver-state-dir.ts";

/** What a disk attached without device-mapper is refused with: how to get one attached through it. */
const notFenceableHint =
  "kvol up --host linux attaches disks through device-mapper only when started with --fence-after";

export interface RealDiskFencing {
  /** Attach disks through device-mapper (`--fenceable` for the disk driver's controller and node plugins). */
  readonly fenceable: boolean;
  /** Why the disks cannot be fenced on this machine, when fencing was asked for and cannot be had. */
  readonly unavailable: string | undefined;
  /** The node-fencing controller's fencer for the disks of the data directory. */
  fencers(dataDirPath: string): StorageFencer[];
}

/**
 * `kvol server --fence-disks-dir D`: the fencer of the disks a disk.csi.kvol.io controller on this
 * machine keeps in D and attaches through device-mapper (`kvol csi-driver … --fenceable`, its nodes
 * `kvol node --fenceable-disks`). On a machine without device-mapper it refuses, saying why.
 */
export function serverDiskFencer(host: Host, disksDir: string): StorageFencer {
  return new DmDiskFencer(host, new LoopDiskBackend({ host, disksDir, fenceable: true }));
}

/** Decides, from the machine's device-mapper and `--fence-after`, how the real disks are attached and fenced. */
export async function realDiskFencing(host: Host, fenceAfterMs: number | undefined): Promise<RealDiskFencing> {
  const missing = await deviceMapperUnavailable(host);
  const fenceable = fenceAfterMs !== undefined && missing === undefined;
  return {
    fenceable,
    unavailable: fenceAfterMs === undefined ? undefined : missing,
    fencers: (dataDirPath) => [
      new DmDiskFencer(
        host,
        new LoopDiskBackend({ host, disksDir: join(dataDirPath, disksDirName), fenceable }),
        notFenceableHint,
      ),
    ],
  };
}
