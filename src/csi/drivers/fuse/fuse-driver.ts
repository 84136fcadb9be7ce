/**
 * fuse.csi.kvol.io: volumes served on nodes by FUSE daemons that run inside the node plugin, the
 * design of s3fs/gcsfuse/ceph-fuse CSI drivers — and of their classic failure (seed 003, spec §8.3):
 * restart the plugin and every volume it served answers "transport endpoint is not connected".
 *
 *   const driver = createFuseDriver({ host, clock, nodeId: "node-a", api: recoveryApiFromClient(client) });
 *   await driver.stop();   // the plugin container goes: daemons die, mounts stay, dead
 *   await driver.start();  // a new one comes up: with reestablishOnStart, the mounts work again
 *
 * `reestablishOnStart` (default on) is kvol's fix, the seed's: on start the plugin reads from the
 * API which mounts it served on this node and serves each dead one again (fuse-reestablish.ts).
 * Turn it off to reproduce the Kubernetes behaviour, where they stay dead.
 *
 * Data: like hostpath, a volume is the directory `<stateDir>/<volumeId>` made by the controller on
 * its Host; every node plugin serves that path from its own Host, so in a multi-node cluster the
 * state directory is shared storage (in the simulator: run controller and node on one node).
 * The FUSE program is `kvolfs` (modelled by the simulator); on a real node pass `bindfs`, or `s3`
 * to serve each volume from a prefix of a bucket with s3fs (fuse-program.ts).
 */
import type { Host } from "../../../host/host.ts";
import type { MountLogger } from "../../../host/mount/logger.ts";
import { Mounter } from "../../../host/mount/mounter.ts";
import type { Clock } from "../../../runtime/clock.ts";
import { defaultKubeletRootDir } from "../../../volume/paths.ts";
import type { BundledDriver } from "../common/bundled-driver.ts";
import { type CapacityOptions, capacityLimitsOf } from "../common/capacity.ts";
import { CatalogController } from "../common/catalog-controller.ts";
import { defaultFuseStateDir, fuseDriverName, fuseVolumeIdPrefix } from "../common/constants.ts";
import { DriverIdentity } from "../common/driver-identity.ts";
import { HostFileVolumeCatalog } from "../common/host-file-catalog.ts";
import { allAccessModes, type CapabilitySupport } from "../common/volume-capabilities.ts";
import type { VolumeCatalog } from "../common/volume-catalog.ts";
import { HostDirectoryStorage } from "../common/volume-storage.ts";
import { FuseNode } from "./fuse-node.ts";
import { directoryFuseProgram, type FuseProgram, type S3fsOptions, s3fsCommand, s3fsProgram } from "./fuse-program.ts";
import { type ReestablishReport, reestablishMounts, servedVolumes } from "./fuse-reestablish.ts";
import type { FuseRecoveryApi } from "./recovery-api.ts";

/** The FUSE program the simulator models for this driver. */
const defaultFuseProgram = "kvolfs";

export interface FuseDriverOptions extends CapacityOptions {
  host: Host;
  /** Paces the wait for a daemon's mount. */
  clock: Clock;
  nodeId: string;
  /** NodeGetInfo's max_volumes_per_node (default 0: no limit). */
  maxVolumesPerNode?: number;
  /** Where volumes and the catalog file live; default /var/lib/kvol/csi-fuse. */
  stateDir?: string;
  /** Default: a HostFileVolumeCatalog in `stateDir`. */
  catalog?: VolumeCatalog;
  /** A program serving a node directory per volume: default `kvolfs`; `bindfs` on a real node. */
  fuseProgram?: string;
  /** Serve each volume from a prefix of this bucket with s3fs instead (then `fuseProgram` must be unset or `s3fs`). */
  s3?: S3fsOptions;
  /** Offer NodeStage/NodeUnstage, one daemon per staged volume (default true); else one daemon per publish. */
  stageUnstage?: boolean;
  /** On start, serve again every dead mount the API says this node uses (default true). */
  reestablishOnStart?: boolean;
  /** Read-only API access for re-establishing; without it there is nothing to re-establish from. */
  api?: FuseRecoveryApi;
  /** Default /var/lib/kubelet. */
  kubeletRootDir?: string;
  /** The agent scope of the plugin's daemons; default `csi-node/fuse.csi.kvol.io`. */
  agent?: string;
  mountLogger?: MountLogger;
  /** Hears what start() could not do (no API to re-establish from, a path it could not repair). */
  onWarning?: (message: string) => void;
}

export interface FuseDriver extends BundledDriver {
  readonly node: FuseNode;
  /** What the last start() re-established; undefined before, or when re-establishing is off. */
  readonly lastReestablishReport: ReestablishReport | undefined;
  /** Re-establishes now, whatever the option says. */
  reestablish(): Promise<ReestablishReport>;
}

export function createFuseDriver(options: FuseDriverOptions): FuseDriver {
  const stateDir = options.stateDir ?? defaultFuseStateDir;
  const catalog = options.catalog ?? new HostFileVolumeCatalog(options.host, stateDir);
  const support: CapabilitySupport = { driverName: fuseDriverName, accessModes: allAccessModes, block: false };
  const stageUnstage = options.stageUnstage ?? true;
  const controller = new CatalogController({
    driverName: fuseDriverName,
    catalog,
    storage: new HostDirectoryStorage(options.host, stateDir),
    support,
    capacity: capacityLimitsOf(options),
    volumeIdPrefix: fuseVolumeIdPrefix,
    attachRequired: false,
  });
  const node = new FuseNode({
    host: options.host,
    clock: options.clock,
    mounter: new Mounter(options.host, options.mountLogger === undefined ? {} : { logger: options.mountLogger }),
    nodeId: options.nodeId,
    ...(options.maxVolumesPerNode === undefined ? {} : { maxVolumesPerNode: options.maxVolumesPerNode }),
    catalog,
    support,
    program: fuseProgramOf(options, stateDir),
    agent: options.agent ?? `csi-node/${fuseDriverName}`,
    stageUnstage,
  });
  const warn = options.onWarning ?? (() => undefined);
  let lastReport: ReestablishReport | undefined;

  const reestablish = async (): Promise<ReestablishReport> => {
    if (options.api === undefined) {
      warn(`${fuseDriverName}: no API client, so the mounts of a previous plugin run cannot be re-established`);
      return { repaired: [], failed: [] };
    }
    const context = {
      api: options.api,
      driverName: fuseDriverName,
      nodeName: options.host.nodeName,
      kubeletRootDir: options.kubeletRootDir ?? defaultKubeletRootDir,
    };
    const report = await reestablishMounts(node, await servedVolumes(context, stageUnstage));
    for (const failure of report.failed)
      warn(`${fuseDriverName}: could not re-establish ${failure.path}: ${failure.message}`);
    return report;
  };

  return {
    name: fuseDriverName,
    identity: new DriverIdentity({ name: fuseDriverName, controllerService: true, accessibilityConstraints: false }),
    controller,
    node,
    get lastReestablishReport() {
      return lastReport;
    },
    reestablish,
    start: async () => {
      node.resume();
      if (options.reestablishOnStart ?? true) lastReport = await reestablish();
    },
    stop: () => node.stop(),
  };
}

function fuseProgramOf(options: FuseDriverOptions, stateDir: string): FuseProgram {
  if (options.s3 === undefined) return directoryFuseProgram(options.fuseProgram ?? defaultFuseProgram, stateDir);
  if (options.fuseProgram !== undefined && options.fuseProgram !== s3fsCommand) {
    throw new Error(`${fuseDriverName}: s3 options need the ${s3fsCommand} program, not ${options.fuseProgram}`);
  }
  return s3fsProgram(options.s3);
}
