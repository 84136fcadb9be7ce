/**
 * Node fencing for the real disks of `kvol up --host linux` (docs/fencing.md): with `--fence-after`,
 * disk.csi.kvol.io's controller and every node's plugin attach each disk to each node through the
 * node's own loop device (`kvol csi-driver --fenceable`, over `<disks>/nodes/<node>/<id>.img`), and
 * the node-fencing controller gets the loop-device fencer over the same disks directory. Where a
 * probe finds loop devices cannot be fenced (no perl, no loop driver) the disks attach as one shared
 * loop device each and the fencer is registered all the same, so a silent node holding one is
 * refused fencing with the reason on its Node (condition StorageFenced=False) rather than passed
 * over in silence.
 */
import { join } from "node:path";
import type { StorageFencer } from "../controllers/nodefencing/storage-fencer.ts";
import { LoopDiskBackend } from "../csi/drivers/disk/loop-disk-backend.ts";
import { loopFenceUnavailable } from "../csi/drivers/disk/loop-fence.ts";
import { fenceProbeFile, LoopDiskFencer } from "../csi/drivers/disk/loop-fencer.ts";
import type { Host } from "../host/host.ts";
import { disksDirName } from "./bundled-driver-state-dir.ts";

/** What a disk attached through a shared loop device is refused with: how to get one per node. */
const notFenceableHint = "kvol up --host linux attaches a loop device per node only when started with --fence-after";

export interface RealDiskFencing {
  /** Attach a loop device per disk and node (`--fenceable` for the disk driver's controller and node plugins). */
  readonly fenceable: boolean;
  /** Why the disks cannot be fenced on this machine, when fencing was asked for and cannot be had. */
  readonly unavailable: string | undefined;
  /** The node-fencing controller's fencer for the disks of the data directory. */
  fencers(dataDirPath: string): StorageFencer[];
}

/**
 * `kvol server --fence-disks-dir D`: the fencer of the disks a disk.csi.kvol.io controller on this
 * machine keeps in D and attaches a loop device per node (`kvol csi-driver … --fenceable`, its nodes
 * `kvol node --fenceable-disks`). On a machine where loop devices cannot be fenced it refuses, saying why.
 */
export function serverDiskFencer(host: Host, disksDir: string): StorageFencer {
  return new LoopDiskFencer(host, new LoopDiskBackend({ host, disksDir, fenceable: true }));
}

/**
 * Decides, from `--fence-after` and a probe of this machine's loop devices (its scratch file in
 * `probeDir`, a directory of the caller's), how the real disks are attached and fenced.
 */
export async function realDiskFencing(
  host: Host,
  fenceAfterMs: number | undefined,
  probeDir: string,
): Promise<RealDiskFencing> {
  const missing = fenceAfterMs === undefined ? undefined : await loopFenceUnavailable(host, fenceProbeFile(probeDir));
  const fenceable = fenceAfterMs !== undefined && missing === undefined;
  return {
    fenceable,
    unavailable: missing,
    fencers: (dataDir) => [
      new LoopDiskFencer(
        host,
        new LoopDiskBackend({ host, disksDir: join(dataDir, disksDirName), fenceable }),
        notFenceableHint,
      ),
    ],
  };
}
