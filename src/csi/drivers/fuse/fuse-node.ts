/**
 * The Node service of fuse.csi.kvol.io: volumes served by FUSE daemons that live in the node
 * plugin's own scope (fuse-daemons.ts).
 *
 * - With STAGE_UNSTAGE (default): NodeStageVolume starts a daemon mounting the volume on the staging
 *   path; NodePublishVolume bind-mounts the staging path on the pod's target.
 * - Without it: NodePublishVolume starts one daemon per target, as the s3fs driver of seed 003 did.
 *
 * Repairs: a staging or target path whose daemon died (ENOTCONN) is unmounted and served afresh by
 * the same RPC that made it, so a kubelet that publishes again repairs the pod's mount without a
 * pod restart; a publish that finds the staging mount dead restarts its daemon first (the kubelet
 * never stages again a volume it believes staged). On `start()` after a restart, with
 * `reestablishOnStart`, the plugin replays those repairs for every mount the API says it serves
 * (fuse-reestablish.ts).
 */
import type { Host } from "../../../host/host.ts";
import { cleanupMountPoint } from "../../../host/mount/cleanup-mount-point.ts";
import type { Mounter } from "../../../host/mount/mounter.ts";
import type { Clock } from "../../../runtime/clock.ts";
import { CsiError } from "../../grpc/errors.ts";
import type { CsiNode } from "../../grpc/services.ts";
import type {
  NodeExpandVolumeResponse,
  NodeGetCapabilitiesResponse,
  NodeGetInfoResponse,
  NodeGetVolumeStatsRequest,
  NodeGetVolumeStatsResponse,
  NodePublishVolumeRequest,
  NodePublishVolumeResponse,
  NodeRpcType,
  NodeStageVolumeRequest,
  NodeStageVolumeResponse,
  NodeUnpublishVolumeRequest,
  NodeUnpublishVolumeResponse,
  NodeUnstageVolumeRequest,
  NodeUnstageVolumeResponse,
} from "../../proto/types.ts";
import { type BindOutcome, bindMountIdempotently } from "../common/bind-mount.ts";
import { checkAccessType } from "../common/catalog-controller.ts";
import { mountDirMode, volumeTreeEntriesMax } from "../common/constants.ts";
import { step } from "../common/host-failures.ts";
import { isPresent } from "../common/host-paths.ts";
import { mountStateAt } from "../common/mount-state.ts";
import { OperationLocks } from "../common/operation-locks.ts";
import {
  requireField,
  requireIdField,
  requirePathField,
  requirePublishStagingPath,
  requireStatsPath,
} from "../common/request-fields.ts";
import { rpcCapabilities } from "../common/rpc-capabilities.ts";
import {
  type CapabilitySupport,
  isReaderOnly,
  mountFlagsOf,
  requireCapability,
} from "../common/volume-capabilities.ts";
import type { VolumeCatalog, VolumeRecord } from "../common/volume-catalog.ts";
import { treeUsage } from "../common/volume-tree.ts";
import { isFuseMountOf, killDaemonsOfAgent, startFuseDaemon } from "./fuse-daemons.ts";
import type { FuseProgram } from "./fuse-program.ts";

interface FuseNodeOptions {
  host: Host;
  clock: Clock;
  mounter: Mounter;
  nodeId: string;
  /** NodeGetInfo's max_volumes_per_node (0: no limit). */
  maxVolumesPerNode?: number;
  catalog: VolumeCatalog;
  support: CapabilitySupport;
  /** The FUSE program the daemons run, and where a volume's data lives for it. */
  program: FuseProgram;
  /** The agent scope of the plugin's daemons. */
  agent: string;
  stageUnstage: boolean;
}

/** How a staging or target path was brought to serve its volume. */
export type ServeOutcome = BindOutcome;

export class FuseNode implements CsiNode {
  private readonly locks = new OperationLocks();
  private running = true;

  constructor(readonly options: FuseNodeOptions) {}

  get isRunning(): boolean {
    return this.running;
  }

  /** The plugin container stops: its daemons die with it, their mounts stay (dead). */
  async stop(): Promise<void> {
    this.running = false;
    await killDaemonsOfAgent(this.options.host, this.options.agent);
  }

  /** A new plugin container is up and answers calls again. */
  resume(): void {
    this.running = true;
  }

  nodeStageVolume(request: NodeStageVolumeRequest): Promise<NodeStageVolumeResponse> {
    const rpc = "NodeStageVolume";
    this.requireRunning(rpc);
    this.requireStaging(rpc);
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    const stagingPath = requirePathField(request.stagingTargetPath, "staging_target_path", rpc);
    const accessType = requireCapability(request.volumeCapability, "volume_capability", rpc, this.options.support);
    return this.locks.run(`volume ${volumeId}`, async () => {
      checkAccessType(await this.localVolume(volumeId, rpc), accessType, rpc);
      await this.serveWithDaemon(volumeId, stagingPath, "staging_target_path", rpc);
      return {};
    });
  }

  nodeUnstageVolume(request: NodeUnstageVolumeRequest): Promise<NodeUnstageVolumeResponse> {
    const rpc = "NodeUnstageVolume";
    this.requireRunning(rpc);
    this.requireStaging(rpc);
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    const stagingPath = requirePathField(request.stagingTargetPath, "staging_target_path", rpc);
    return this.locks.run(`volume ${volumeId}`, () => this.cleanUp(stagingPath, rpc));
  }

  nodePublishVolume(request: NodePublishVolumeRequest): Promise<NodePublishVolumeResponse> {
    const rpc = "NodePublishVolume";
    this.requireRunning(rpc);
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    const targetPath = requirePathField(request.targetPath, "target_path", rpc);
    const stagingPath = this.options.stageUnstage ? requirePublishStagingPath(request.stagingTargetPath, rpc) : "";
    const accessType = requireCapability(request.volumeCapability, "volume_capability", rpc, this.options.support);
    const readonly = request.readonly || isReaderOnly(request.volumeCapability);
    const flags = mountFlagsOf(request.volumeCapability);
    return this.locks.run(`target ${targetPath}`, async () => {
      checkAccessType(await this.localVolume(volumeId, rpc), accessType, rpc);
      await this.publish(volumeId, stagingPath, targetPath, readonly, flags);
      return {};
    });
  }

  nodeUnpublishVolume(request: NodeUnpublishVolumeRequest): Promise<NodeUnpublishVolumeResponse> {
    const rpc = "NodeUnpublishVolume";
    this.requireRunning(rpc);
    requireIdField(request.volumeId, "volume_id", rpc);
    const targetPath = requirePathField(request.targetPath, "target_path", rpc);
    return this.locks.run(`target ${targetPath}`, () => this.cleanUp(targetPath, rpc));
  }

  async nodeGetVolumeStats(request: NodeGetVolumeStatsRequest): Promise<NodeGetVolumeStatsResponse> {
    const rpc = "NodeGetVolumeStats";
    this.requireRunning(rpc);
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    requireField(request.volumePath, "volume_path", rpc);
    const record = await this.options.catalog.get(volumeId);
    if (record === undefined) throw new CsiError("NotFound", `${rpc}: volume ${volumeId} does not exist`);
    const volumePath = requireStatsPath(request.volumePath, volumeId, rpc);
    const state = await step(`${rpc}: checking ${volumePath}`, () => mountStateAt(this.options.host, volumePath));
    if (state.kind === "absent") throw new CsiError("NotFound", `${rpc}: volume_path ${volumePath} does not exist`);
    if (state.kind !== "mounted") {
      const why =
        state.kind === "corrupted" ? `its FUSE daemon is gone: ${state.error.message}` : "nothing is mounted there";
      return {
        usage: [],
        volumeCondition: { abnormal: true, message: `${volumePath} does not serve volume ${volumeId}: ${why}` },
      };
    }
    // A volume in a bucket is measured through its mount.
    const dataPath = this.options.program.localDataPath(volumeId) ?? volumePath;
    const usage = await step(`${rpc}: measuring ${dataPath}`, () =>
      treeUsage(this.options.host, dataPath, volumeTreeEntriesMax),
    );
    const total = record.capacityBytes;
    return {
      usage: [{ total, used: usage.usedBytes, available: Math.max(0, total - usage.usedBytes), unit: "BYTES" }],
      volumeCondition: { abnormal: false, message: "" },
    };
  }

  async nodeExpandVolume(): Promise<NodeExpandVolumeResponse> {
    throw new CsiError("Unimplemented", "NodeExpandVolume: fuse volumes are not expanded");
  }

  async nodeGetCapabilities(): Promise<NodeGetCapabilitiesResponse> {
    this.requireRunning("NodeGetCapabilities");
    const types: NodeRpcType[] = ["GET_VOLUME_STATS", "VOLUME_CONDITION", "SINGLE_NODE_MULTI_WRITER"];
    if (this.options.stageUnstage) types.unshift("STAGE_UNSTAGE_VOLUME");
    return rpcCapabilities(types);
  }

  async nodeGetInfo(): Promise<NodeGetInfoResponse> {
    this.requireRunning("NodeGetInfo");
    return {
      nodeId: this.options.nodeId,
      maxVolumesPerNode: this.options.maxVolumesPerNode ?? 0,
      accessibleTopology: null,
    };
  }

  /**
   * Makes `targetPath` serve the volume: through the staging mount (repairing it first when its
   * daemon died), or with a daemon of its own when the driver does not stage.
   */
  async publish(
    volumeId: string,
    stagingPath: string,
    targetPath: string,
    readonly: boolean,
    flags: readonly string[],
  ): Promise<ServeOutcome> {
    const rpc = "NodePublishVolume";
    if (!this.options.stageUnstage) {
      const outcome = await this.serveWithDaemon(volumeId, targetPath, "target_path", rpc);
      if (readonly && outcome !== "alreadyMounted") await this.remountReadOnly(targetPath, rpc);
      return outcome;
    }
    await this.requireStaged(volumeId, stagingPath, rpc);
    return bindMountIdempotently(this.options.host, this.options.mounter, {
      rpc,
      targetField: "target_path",
      source: stagingPath,
      target: targetPath,
      readonly,
      flags,
      targetKind: "directory",
    });
  }

  /** Makes `mountPoint` a live FUSE mount of the volume: already one, repaired, or new. */
  async serveWithDaemon(volumeId: string, mountPoint: string, field: string, rpc: string): Promise<ServeOutcome> {
    const { host, program } = this.options;
    const source = program.mountSource(volumeId);
    const state = await step(`${rpc}: checking ${mountPoint}`, () => mountStateAt(host, mountPoint));
    if (state.kind === "mounted") {
      if (isFuseMountOf(state.entry, source)) return "alreadyMounted";
      throw new CsiError(
        "AlreadyExists",
        `${rpc}: ${field} ${mountPoint} already holds another mount; unmount it first`,
      );
    }
    if (state.kind === "corrupted") {
      await step(`${rpc}: unmounting the dead FUSE mount at ${mountPoint} (${state.error.message})`, () =>
        this.options.mounter.unmount(mountPoint),
      );
    }
    if (state.kind === "absent") {
      await step(`${rpc}: creating ${mountPoint}`, () => host.mkdir(mountPoint, mountDirMode, { recursive: true }));
    }
    const { clock, agent } = this.options;
    await step(`${rpc}: serving ${source} on ${mountPoint} with ${program.command}`, () =>
      startFuseDaemon(host, clock, { program, agent, volumeId, mountPoint }),
    );
    return state.kind === "corrupted" ? "repaired" : "mounted";
  }

  /** The staging path must hold the volume's FUSE mount; a dead one is served afresh. */
  private async requireStaged(volumeId: string, stagingPath: string, rpc: string): Promise<void> {
    const source = this.options.program.mountSource(volumeId);
    const state = await step(`${rpc}: checking ${stagingPath}`, () => mountStateAt(this.options.host, stagingPath));
    if (state.kind === "corrupted" && isFuseMountOf(state.entry, source)) {
      await this.serveWithDaemon(volumeId, stagingPath, "staging_target_path", rpc);
      return;
    }
    if (state.kind !== "mounted" || !isFuseMountOf(state.entry, source)) {
      throw new CsiError(
        "FailedPrecondition",
        `${rpc}: volume ${volumeId} is not staged at ${stagingPath}; call NodeStageVolume first`,
      );
    }
  }

  private async remountReadOnly(targetPath: string, rpc: string): Promise<void> {
    const result = await step(`${rpc}: remounting ${targetPath} read-only`, () =>
      this.options.host.run("mount", ["-o", "remount,bind,ro", targetPath]),
    );
    if (result.exitCode !== 0) {
      throw new CsiError("Internal", `${rpc}: remounting ${targetPath} read-only failed: ${result.output.trim()}`);
    }
  }

  private async cleanUp(path: string, rpc: string): Promise<Record<string, never>> {
    await step(`${rpc}: cleaning up ${path}`, () =>
      cleanupMountPoint(this.options.host, this.options.mounter, path, true),
    );
    return {};
  }

  private async localVolume(volumeId: string, rpc: string): Promise<VolumeRecord> {
    const record = await this.options.catalog.get(volumeId);
    if (record === undefined) throw new CsiError("NotFound", `${rpc}: volume ${volumeId} does not exist`);
    const dataPath = this.options.program.localDataPath(volumeId);
    if (dataPath === undefined) return record;
    if (!(await step(`${rpc}: checking ${dataPath}`, () => isPresent(this.options.host, dataPath)))) {
      throw new CsiError(
        "NotFound",
        `${rpc}: volume ${volumeId} has no data at ${dataPath} on node ${this.options.nodeId}; ` +
          "give every node plugin the controller's state directory (shared storage)",
      );
    }
    return record;
  }

  private requireRunning(rpc: string): void {
    if (!this.running) {
      throw new CsiError("Unavailable", `${rpc}: the ${this.options.support.driverName} node plugin is not running`);
    }
  }

  private requireStaging(rpc: string): void {
    if (!this.options.stageUnstage) {
      throw new CsiError("Unimplemented", `${rpc}: this node plugin runs without STAGE_UNSTAGE_VOLUME`);
    }
  }
}
