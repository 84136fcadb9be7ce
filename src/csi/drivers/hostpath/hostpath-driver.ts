/**
 * hostpath.csi.kvol.io: volumes that are directories (or, in block mode, sparse files) on a node,
 * like kubernetes-csi's csi-driver-host-path.
 *
 *   const driver = createHostpathDriver({ host, nodeId: "node-a" });
 *   await serveCsi({ endpoint, ...driver });              // or connectCsiInProcess({ ...driver })
 *
 * Where the data lives: CreateVolume makes `<stateDir>/<volumeId>` on the controller's Host, and
 * the node plugin stages that same path on its own Host, so a volume is usable on the node whose
 * controller created it. With `nodeLocalTopology` (the default) the volume says so through the
 * `topology.hostpath.csi.kvol.io/node` segment, and Kubernetes schedules its pods there. A
 * multi-node cluster therefore runs one controller per node (the external-provisioner's
 * distributed provisioning), or a single node.
 *
 * The catalog of volumes (names, capacities, publications) is shared by controller and node: by
 * default a JSON file in the state directory (what a driver process uses, so it survives
 * restarts); a simulated cluster may pass one MemoryVolumeCatalog to all its hostpath instances.
 */
import type { Host } from "../../../host/host.ts";
import type { MountLogger } from "../../../host/mount/logger.ts";
import { Mounter } from "../../../host/mount/mounter.ts";
import type { Clock } from "../../../runtime/clock.ts";
import type { BundledDriver } from "../common/bundled-driver.ts";
import { type CapacityOptions, capacityLimitsOf } from "../common/capacity.ts";
import { CatalogController } from "../common/catalog-controller.ts";
import {
  defaultHostpathStateDir,
  hostpathDriverName,
  hostpathTopologyKey,
  hostpathVolumeIdPrefix,
} from "../common/constants.ts";
import { DriverIdentity } from "../common/driver-identity.ts";
import type { VolumeExpansionMode } from "../common/expansion.ts";
import { HostFileVolumeCatalog } from "../common/host-file-catalog.ts";
import { HostSnapshotStore } from "../common/host-snapshots.ts";
import { type CapabilitySupport, singleNodeAccessModes } from "../common/volume-capabilities.ts";
import type { VolumeCatalog } from "../common/volume-catalog.ts";
import { HostDirectoryStorage } from "../common/volume-storage.ts";
import { HostpathNode } from "./hostpath-node.ts";

export interface HostpathDriverOptions extends CapacityOptions {
  /** The node this driver instance runs on: where the controller creates data and the node plugin mounts. */
  host: Host;
  /** NodeGetInfo's node_id (Kubernetes puts it in the CSINode object). */
  nodeId: string;
  /** Where volumes and the catalog file live; default /var/lib/kvol/csi-hostpath. */
  stateDir?: string;
  /** Default: a HostFileVolumeCatalog in `stateDir`. */
  catalog?: VolumeCatalog;
  /** Volumes are accessible from their node only, and say so through topology (default true). */
  nodeLocalTopology?: boolean;
  /** Offer ControllerPublish/Unpublish (PUBLISH_UNPUBLISH_VOLUME), so Kubernetes attaches (default false). */
  attachRequired?: boolean;
  /** NodeGetInfo's max_volumes_per_node (default 0: the CO decides). */
  maxVolumesPerNode?: number;
  /** Receives mount-utils' log lines. */
  mountLogger?: MountLogger;
  /** When volumes may grow: ONLINE (default, also while in use) or OFFLINE (only when no pod uses them). */
  volumeExpansion?: VolumeExpansionMode;
  /** GetCapacity's pool: all volumes together may take at most this; default the state directory's filesystem. */
  capacityLimitBytes?: number;
  /**
   * The driver's clock (snapshots' creation times). With it the controller offers snapshots
   * (`<stateDir>/snapshots/`), restores from them and clones of volumes.
   */
  clock?: Clock;
  /** With `attachRequired`: the nodes ControllerPublishVolume knows (others are NotFound); default any. */
  isKnownNode?: (nodeId: string) => boolean;
}

export function createHostpathDriver(options: HostpathDriverOptions): BundledDriver {
  const stateDir = options.stateDir ?? defaultHostpathStateDir;
  const catalog = options.catalog ?? new HostFileVolumeCatalog(options.host, stateDir);
  const nodeLocal = options.nodeLocalTopology ?? true;
  const expansion = options.volumeExpansion ?? "ONLINE";
  const capacity = capacityLimitsOf(options);
  const support: CapabilitySupport = {
    driverName: hostpathDriverName,
    accessModes: singleNodeAccessModes,
    block: true,
  };
  const controller = new CatalogController({
    driverName: hostpathDriverName,
    catalog,
    storage: new HostDirectoryStorage(options.host, stateDir),
    support,
    capacity,
    pool: {
      host: options.host,
      path: stateDir,
      maxVolumeBytes: capacity.maxCapacityBytes,
      ...(options.capacityLimitBytes === undefined ? {} : { limitBytes: options.capacityLimitBytes }),
    },
    volumeIdPrefix: hostpathVolumeIdPrefix,
    attachRequired: options.attachRequired ?? false,
    expansion,
    ...(nodeLocal ? { nodeLocal: { nodeId: options.nodeId, topologyKey: hostpathTopologyKey } } : {}),
    ...(options.isKnownNode === undefined ? {} : { isKnownNode: options.isKnownNode }),
    ...(options.clock === undefined
      ? {}
      : { snapshotStore: new HostSnapshotStore(options.host, stateDir, options.clock) }),
  });
  const node = new HostpathNode({
    host: options.host,
    mounter: new Mounter(options.host, options.mountLogger === undefined ? {} : { logger: options.mountLogger }),
    nodeId: options.nodeId,
    stateDir,
    catalog,
    support,
    maxVolumesPerNode: options.maxVolumesPerNode ?? 0,
    expansion,
    ...(nodeLocal ? { topologyKey: hostpathTopologyKey } : {}),
  });
  return {
    name: hostpathDriverName,
    identity: new DriverIdentity({
      name: hostpathDriverName,
      controllerService: true,
      accessibilityConstraints: nodeLocal,
      volumeExpansion: expansion,
    }),
    controller,
    node,
    start: async () => undefined,
    stop: async () => undefined,
  };
}
