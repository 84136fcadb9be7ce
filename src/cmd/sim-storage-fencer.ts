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
import { rbdDefaultPool } from "../volume/plugins/rbd/rbd-source.ts";
import { simDiskDriverName, simDiskIdOption } from "../volume/plugins/simdisk/sim-disk-source.ts";

class SimDiskFencer implements StorageFencer {
  readonly name = "cloud disks";
  constructor(private readonly world: SimWorld) {}

  /**
   * A disk of this world's provider: a disk.csi.kvol.io volume whose handle is one of its disks (on
   * real nodes the same driver serves loop disks this world knows nothing of), or a sim-disk flexVolume.
   */
  covers(pv: PersistentVolume): boolean {
    const spec = pv.spec;
    const diskId =
      spec?.csi?.driver === diskDriverName
        ? spec.csi.volumeHandle
        : spec?.flexVolume?.driver === simDiskDriverName
          ? spec.flexVolume.options?.[simDiskIdOption]
          : undefined;
    return diskId !== undefined && this.world.disks.has(diskId);
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

  /** The disks the provider still has attached to the node, and disk devices a running node still has. */
  async heldBy(nodeName: string): Promise<readonly string[]> {
    const held = new Set(this.world.disksAttachedTo(nodeName).map(({ disk }) => `disk/${disk.id}`));
    for (const device of devicesOf(this.world, nodeName, "disk")) held.add(device);
    return [...held];
  }

  async unfence(nodeName: string): Promise<void> {
    this.world.unfenceNodeStorage(nodeName);
  }
}

/** The node's block devices of `kind` still present (a powered-off node has none). */
function devicesOf(world: SimWorld, nodeName: string, kind: "disk" | "rbd"): string[] {
  const host = world.node(nodeName);
  if (!host.poweredOn) return [];
  return host
    .blockDevices()
    .filter((device) => device.kind === kind && !device.gone)
    .map((device) => (device.rbd === undefined ? device.path : `rbd/${device.rbd.pool}/${device.rbd.image}`));
}

class SimRbdFencer implements StorageFencer {
  readonly name = "kubernetes.io/rbd";
  constructor(private readonly world: SimWorld) {}

  /** An RBD image of this world's Ceph cluster. */
  covers(pv: PersistentVolume): boolean {
    const rbd = pv.spec?.rbd;
    return rbd !== undefined && this.world.rbd.image(rbd.pool ?? rbdDefaultPool, rbd.image) !== undefined;
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

  /** The images the node's kernel still maps (the cluster's view of its client's open images). */
  async heldBy(nodeName: string): Promise<readonly string[]> {
    return devicesOf(this.world, nodeName, "rbd");
  }

  async unfence(nodeName: string): Promise<void> {
    this.world.unfenceNodeStorage(nodeName);
  }
}

/** The fencers of a simulated world: its cloud disks and its RBD cluster. */
export function simStorageFencers(world: SimWorld): StorageFencer[] {
  return [new SimDiskFencer(world), new SimRbdFencer(world)];
}
