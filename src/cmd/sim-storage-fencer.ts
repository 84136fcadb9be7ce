/**
 * The simulated world's fence for the node-fencing controller: one fencer for the cloud disks
 * (disk.csi.kvol.io and the in-tree kvol.io/sim-disk flexVolume) and one for the RBD cluster, both
 * through `SimWorld.fenceNodeStorage` (the provider refuses the node's disk I/O; Ceph blocklists its
 * address, dropping its watches). Each confirms by asking the backend whether the node is now
 * refused, so a fence the storage did not take is never reported as done.
 */
import type { PersistentVolume } from "../api/objects.ts";
import type { FenceResult, StorageFencer } from "../controllers/nodefencing/storage-fencer.ts";
import { diskDriverName } from "../csi/drivers/common/constants.ts";
import type { SimWorld } from "../host/sim/sim-world.ts";
import { simDiskDriverName } from "../volume/plugins/simdisk/sim-disk-source.ts";

class SimDiskFencer implements StorageFencer {
  readonly name = "cloud disks";
  constructor(private readonly world: SimWorld) {}

  covers(pv: PersistentVolume): boolean {
    return pv.spec?.csi?.driver === diskDriverName || pv.spec?.flexVolume?.driver === simDiskDriverName;
  }

  async unavailable(): Promise<string | undefined> {
    return undefined;
  }

  async fence(nodeName: string): Promise<FenceResult> {
    this.world.fenceNodeStorage(nodeName);
    const confirmed = this.world.isStorageFenced(nodeName);
    return {
      confirmed,
      detail: confirmed ? "the disk provider refuses the node's I/O" : "the disk provider still accepts the node's I/O",
    };
  }

  async unfence(nodeName: string): Promise<void> {
    this.world.unfenceNodeStorage(nodeName);
  }
}

class SimRbdFencer implements StorageFencer {
  readonly name = "kubernetes.io/rbd";
  constructor(private readonly world: SimWorld) {}

  covers(pv: PersistentVolume): boolean {
    return pv.spec?.rbd !== undefined;
  }

  async unavailable(): Promise<string | undefined> {
    return undefined;
  }

  async fence(nodeName: string): Promise<FenceResult> {
    this.world.fenceNodeStorage(nodeName);
    const lingering = this.world.rbd.clientsOf(nodeName).filter((client) => !this.world.rbd.isFenced(client));
    const confirmed = lingering.length === 0 && this.world.isStorageFenced(nodeName);
    return {
      confirmed,
      detail: confirmed
        ? "the node's address is blocklisted (ceph osd blocklist add)"
        : `${lingering.length} client(s) of the node are not blocklisted`,
    };
  }

  async unfence(nodeName: string): Promise<void> {
    this.world.unfenceNodeStorage(nodeName);
  }
}

/** The fencers of a simulated world: its cloud disks and its RBD cluster. */
export function simStorageFencers(world: SimWorld): StorageFencer[] {
  return [new SimDiskFencer(world), new SimRbdFencer(world)];
}
