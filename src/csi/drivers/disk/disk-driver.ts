/**
 * disk.csi.kvol.io: the simulated cloud's attachable disks behind CSI, as a cloud provider's disk
 * driver (EBS, PD, Azure Disk) serves them — one disk per volume, attached to one node at a time
 * by ControllerPublishVolume (through a VolumeAttachment and the external-attacher), formatted and
 * mounted once per node by NodeStageVolume, bound into pods by NodePublishVolume. Detach from one
 * node and attach to another is how an RWO volume follows its pod.
 *
 *   const driver = createDiskDriver({ disks: world.disks, host, nodeId: "node-a", zone: "zone-1" });
 *   await serveCsi({ endpoint, ...driver });              // or connectCsiInProcess(driver)
 *
 * The driver keeps nothing itself: disks and attachments are the backend's, mounts the node's,
 * so any instance — a controller in the control plane, a node plugin on each node — sees the same
 * volumes. The backend is the simulated cloud (`kvol up`, `kvol sim`) or, on a real Linux host,
 * LoopDiskBackend: sparse files attached as loop devices.
 */
import type { Host } from "../../../host/host.ts";
import type { MountLogger } from "../../../host/mount/logger.ts";
import { Mounter } from "../../../host/mount/mounter.ts";
import type { BundledDriver } from "../common/bundled-driver.ts";
import { type CapacityOptions, capacityLimitsOf } from "../common/capacity.ts";
import { diskDriverName, diskMaxVolumesPerNode } from "../common/constants.ts";
import { DriverIdentity } from "../common/driver-identity.ts";
import type { VolumeExpansionMode } from "../common/expansion.ts";
import type { CapacityPool } from "../common/get-capacity.ts";
import { allAccessModes, type CapabilitySupport } from "../common/volume-capabilities.ts";
import type { DiskBackend } from "./disk-backend.ts";
import { DiskController } from "./disk-controller.ts";
import { DiskNode } from "./disk-node.ts";

export interface DiskDriverOptions extends CapacityOptions {
  /** The cloud's disk API (the simulated world's `disks`, or a LoopDiskBackend). */
  disks: DiskBackend;
  /** The node this instance's node plugin runs on. */
  host: Host;
  /** NodeGetInfo's node_id: the node name, which the provider attaches to. */
  nodeId: string;
  /** The node's zone, reported as topology; none reports the default zone. */
  zone?: string;
  /** NodeGetInfo's max_volumes_per_node (default diskMaxVolumesPerNode). */
  maxVolumesPerNode?: number;
  mountLogger?: MountLogger;
  /** When volumes may grow: ONLINE (default, also while in use) or OFFLINE (only when no pod uses them). */
  volumeExpansion?: VolumeExpansionMode;
  /** Where the disks' bytes live, for GetCapacity (a LoopDiskBackend's directory); default the root disk. */
  disksDir?: string;
  /** GetCapacity's pool per zone: all disks together may take at most this; default the filesystem's size. */
  capacityLimitBytes?: number;
}

export function createDiskDriver(options: DiskDriverOptions): BundledDriver {
  const support: CapabilitySupport = { driverName: diskDriverName, accessModes: allAccessModes, block: true };
  const capacity = capacityLimitsOf(options);
  const pool: CapacityPool = {
    host: options.host,
    path: options.disksDir ?? "/",
    maxVolumeBytes: capacity.maxCapacityBytes,
    ...(options.capacityLimitBytes === undefined ? {} : { limitBytes: options.capacityLimitBytes }),
  };
  const expansion = options.volumeExpansion ?? "ONLINE";
  const controller = new DiskController({ disks: options.disks, support, capacity, pool, expansion });
  const node = new DiskNode({
    host: options.host,
    mounter: new Mounter(options.host, options.mountLogger === undefined ? {} : { logger: options.mountLogger }),
    nodeId: options.nodeId,
    zone: options.zone,
    disks: options.disks,
    support,
    maxVolumesPerNode: options.maxVolumesPerNode ?? diskMaxVolumesPerNode,
    expansion,
  });
  return {
    name: diskDriverName,
    identity: new DriverIdentity({
      name: diskDriverName,
      controllerService: true,
      accessibilityConstraints: true,
      volumeExpansion: expansion,
    }),
    controller,
    node,
    start: async () => undefined,
    stop: async () => undefined,
  };
}
