/**
 * The Node service of hostpath.csi.kvol.io, acting on the node through its Host.
 *
 * - NodeStageVolume: a filesystem volume's directory is bind-mounted on the staging path; a block
 *   volume's sparse file gets a loop device (losetup).
 * - NodePublishVolume: the staging mount is bind-mounted on the pod's target directory (read-only
 *   when asked); for a block volume the loop device is bind-mounted on the pod's target file.
 * - NodeUnpublishVolume / NodeUnstageVolume: mount-utils' CleanupMountPoint, so a missing path is
 *   success and a corrupted mount is unmounted without a stat; block unstage detaches the loop device.
 *
 * - NodeExpandVolume: a directory has no filesystem of its own to grow, so it checks the request and
 *   reports the volume's size; a block volume's loop device re-reads its grown file (`losetup -c`).
 *   OFFLINE: FailedPrecondition while a pod has the volume mounted.
 *
 * - Inline ephemeral volumes (volume context `csi.storage.k8s.io/ephemeral: "true"`): publish
 *   creates the directory, unpublish deletes it (hostpath-ephemeral.ts).
 *
 * Every call is idempotent (bind-mount.ts), and a corrupted target is repaired by publishing again.
 */
import type { Host } from "../../../host/host.ts";
import { cleanupMountPoint } from "../../../host/mount/cleanup-mount-point.ts";
import { getMountRefs } from "../../../host/mount/mount-points.ts";
import type { Mounter } from "../../../host/mount/mounter.ts";
import { CsiError } from "../../grpc/errors.ts";
import type { CsiNode } from "../../grpc/services.ts";
import type {
  NodeExpandVolumeRequest,
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
import { bindMountIdempotently, bindPublished } from "../common/bind-mount.ts";
import { checkAccessType } from "../common/catalog-controller.ts";
import { mountDirMode } from "../common/constants.ts";
import { checkNodeExpansionRange, offlineExpansionRefused, type VolumeExpansionMode } from "../common/expansion.ts";
import { step } from "../common/host-failures.ts";
import { isPresent } from "../common/host-paths.ts";
import { detachLoopDevices, ensureLoopDevice, loopDevicesOf, refreshLoopDeviceSizes } from "../common/loop-devices.ts";
import { mountStateAt, showsSameFile } from "../common/mount-state.ts";
import { OperationLocks } from "../common/operation-locks.ts";
import {
  requireField,
  requireIdField,
  requirePathField,
  requirePublishStagingPath,
  requireStatsPath,
} from "../common/request-fields.ts";
import { rpcCapabilities } from "../common/rpc-capabilities.ts";
import { type CapabilitySupport, mountFlagsOf, requireCapability } from "../common/volume-capabilities.ts";
import type { VolumeCatalog, VolumeRecord } from "../common/volume-catalog.ts";
import { volumeDataPath } from "../common/volume-storage.ts";
import { deleteEphemeral, isEphemeralPublish, publishEphemeral } from "./hostpath-ephemeral.ts";
import { volumeStats } from "./hostpath-stats.ts";

interface HostpathNodeOptions {
  host: Host;
  mounter: Mounter;
  nodeId: string;
  stateDir: string;
  catalog: VolumeCatalog;
  support: CapabilitySupport;
  /** The topology segment key NodeGetInfo reports, when volumes are node-local. */
  topologyKey?: string;
  /** NodeGetInfo's max_volumes_per_node; 0 lets the CO decide. */
  maxVolumesPerNode: number;
  expansion: VolumeExpansionMode;
}

export class HostpathNode implements CsiNode {
  private readonly locks = new OperationLocks();

  constructor(private readonly options: HostpathNodeOptions) {}

  nodeStageVolume(request: NodeStageVolumeRequest): Promise<NodeStageVolumeResponse> {
    const rpc = "NodeStageVolume";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    const stagingPath = requirePathField(request.stagingTargetPath, "staging_target_path", rpc);
    const accessType = requireCapability(request.volumeCapability, "volume_capability", rpc, this.options.support);
    return this.locks.run(`volume ${volumeId}`, async () => {
      const record = await this.localVolume(volumeId, rpc);
      checkAccessType(record, accessType, rpc);
      const dataPath = this.dataPath(volumeId);
      if (accessType === "block") {
        await step(`${rpc}: attaching a loop device to ${dataPath}`, () =>
          ensureLoopDevice(this.options.host, dataPath),
        );
        await step(`${rpc}: creating ${stagingPath}`, () =>
          this.options.host.mkdir(stagingPath, mountDirMode, { recursive: true }),
        );
        return {};
      }
      await bindMountIdempotently(this.options.host, this.options.mounter, {
        rpc,
        targetField: "staging_target_path",
        source: dataPath,
        target: stagingPath,
        readonly: false,
        flags: mountFlagsOf(request.volumeCapability),
        targetKind: "directory",
      });
      return {};
    });
  }

  nodeUnstageVolume(request: NodeUnstageVolumeRequest): Promise<NodeUnstageVolumeResponse> {
    const rpc = "NodeUnstageVolume";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    const stagingPath = requirePathField(request.stagingTargetPath, "staging_target_path", rpc);
    return this.locks.run(`volume ${volumeId}`, async () => {
      const record = await this.options.catalog.get(volumeId);
      const dataPath = this.dataPath(volumeId);
      if (record?.accessType === "block") {
        if (await step(`${rpc}: checking ${dataPath}`, () => isPresent(this.options.host, dataPath))) {
          await step(`${rpc}: detaching the loop devices of ${dataPath}`, () =>
            detachLoopDevices(this.options.host, dataPath),
          );
        }
        return {};
      }
      // The volume may be gone from the catalog already; its staging mount still has to go.
      await step(`${rpc}: cleaning up ${stagingPath}`, () =>
        cleanupMountPoint(this.options.host, this.options.mounter, stagingPath, true),
      );
      return {};
    });
  }

  nodePublishVolume(request: NodePublishVolumeRequest): Promise<NodePublishVolumeResponse> {
    const rpc = "NodePublishVolume";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    const targetPath = requirePathField(request.targetPath, "target_path", rpc);
    if (isEphemeralPublish(request)) return this.publishEphemeral(request, volumeId, targetPath);
    const stagingPath = requirePublishStagingPath(request.stagingTargetPath, rpc);
    const accessType = requireCapability(request.volumeCapability, "volume_capability", rpc, this.options.support);
    return this.locks.run(`target ${targetPath}`, async () => {
      const record = await this.localVolume(volumeId, rpc);
      checkAccessType(record, accessType, rpc);
      const block = accessType === "block";
      const source = block
        ? await this.stagedDevice(record, rpc)
        : await this.stagedDirectory(record, stagingPath, rpc);
      await bindPublished(this.options.host, this.options.mounter, { rpc, source, target: targetPath, block, request });
      return {};
    });
  }

  nodeUnpublishVolume(request: NodeUnpublishVolumeRequest): Promise<NodeUnpublishVolumeResponse> {
    const rpc = "NodeUnpublishVolume";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    const targetPath = requirePathField(request.targetPath, "target_path", rpc);
    return this.locks.run(`target ${targetPath}`, async () => {
      await step(`${rpc}: cleaning up ${targetPath}`, () =>
        cleanupMountPoint(this.options.host, this.options.mounter, targetPath, true),
      );
      await deleteEphemeral(this.options, volumeId);
      return {};
    });
  }

  async nodeGetVolumeStats(request: NodeGetVolumeStatsRequest): Promise<NodeGetVolumeStatsResponse> {
    const rpc = "NodeGetVolumeStats";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    requireField(request.volumePath, "volume_path", rpc);
    const record = await this.requireVolume(volumeId, rpc);
    const volumePath = requireStatsPath(request.volumePath, volumeId, rpc);
    return volumeStats(this.options.host, record, volumePath, this.dataPath(volumeId));
  }

  nodeExpandVolume(request: NodeExpandVolumeRequest): Promise<NodeExpandVolumeResponse> {
    const rpc = "NodeExpandVolume";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    requireField(request.volumePath, "volume_path", rpc);
    const accessType =
      request.volumeCapability === null
        ? undefined
        : requireCapability(request.volumeCapability, "volume_capability", rpc, this.options.support);
    return this.locks.run(`volume ${volumeId}`, async () => {
      const record = await this.requireVolume(volumeId, rpc);
      if (accessType !== undefined) checkAccessType(record, accessType, rpc);
      const volumePath = requireStatsPath(request.volumePath, volumeId, rpc);
      checkNodeExpansionRange(request.capacityRange, record.capacityBytes, volumeId, rpc);
      const { host } = this.options;
      const state = await step(`${rpc}: checking ${volumePath}`, () => mountStateAt(host, volumePath));
      if (state.kind === "absent") {
        throw new CsiError("NotFound", `${rpc}: volume ${volumeId} is not present at volume_path ${volumePath}`);
      }
      const dataPath = this.dataPath(volumeId);
      if (record.accessType === "block") {
        await step(`${rpc}: refreshing the loop devices of ${dataPath}`, () => refreshLoopDeviceSizes(host, dataPath));
        return { capacityBytes: record.capacityBytes };
      }
      if (state.kind !== "mounted") {
        throw new CsiError(
          "FailedPrecondition",
          `${rpc}: volume ${volumeId} is not mounted at volume_path ${volumePath}; stage or publish it first`,
        );
      }
      if (this.options.expansion === "OFFLINE") {
        const stagingPath = request.stagingTargetPath || volumePath;
        const inUse = (await step(`${rpc}: checking who uses ${dataPath}`, () => getMountRefs(host, dataPath))).filter(
          (mountPoint) => mountPoint !== stagingPath,
        );
        if (inUse.length > 0) {
          throw offlineExpansionRefused(rpc, "hostpath.csi.kvol.io", volumeId, `mounted at ${inUse.join(", ")}`);
        }
      }
      return { capacityBytes: record.capacityBytes };
    });
  }

  async nodeGetCapabilities(): Promise<NodeGetCapabilitiesResponse> {
    const types: NodeRpcType[] = [
      "STAGE_UNSTAGE_VOLUME",
      "GET_VOLUME_STATS",
      "VOLUME_CONDITION",
      "SINGLE_NODE_MULTI_WRITER",
      "EXPAND_VOLUME",
    ];
    return rpcCapabilities(types);
  }

  async nodeGetInfo(): Promise<NodeGetInfoResponse> {
    const { nodeId, topologyKey, maxVolumesPerNode } = this.options;
    return {
      nodeId,
      maxVolumesPerNode,
      accessibleTopology: topologyKey === undefined ? null : { segments: { [topologyKey]: nodeId } },
    };
  }

  /** An inline ephemeral volume: no catalog entry and no staging (hostpath-ephemeral.ts). */
  private publishEphemeral(
    request: NodePublishVolumeRequest,
    volumeId: string,
    targetPath: string,
  ): Promise<NodePublishVolumeResponse> {
    const rpc = "NodePublishVolume";
    const accessType = requireCapability(request.volumeCapability, "volume_capability", rpc, this.options.support);
    if (accessType === "block") {
      throw new CsiError("InvalidArgument", `${rpc}: ephemeral volume ${volumeId} cannot be a block volume`);
    }
    return this.locks.run(`target ${targetPath}`, async () => {
      await publishEphemeral(this.options, request, volumeId, targetPath);
      return {};
    });
  }

  private dataPath(volumeId: string): string {
    return volumeDataPath(this.options.stateDir, volumeId);
  }

  private async requireVolume(volumeId: string, rpc: string): Promise<VolumeRecord> {
    const record = await this.options.catalog.get(volumeId);
    if (record === undefined) throw new CsiError("NotFound", `${rpc}: volume ${volumeId} does not exist`);
    return record;
  }

  /** The volume, which must keep its data on this node. */
  private async localVolume(volumeId: string, rpc: string): Promise<VolumeRecord> {
    const record = await this.requireVolume(volumeId, rpc);
    const { nodeId, host } = this.options;
    if (record.nodeId !== undefined && record.nodeId !== nodeId) {
      throw new CsiError(
        "FailedPrecondition",
        `${rpc}: volume ${volumeId} lives on node ${record.nodeId}; it cannot be used on node ${nodeId}`,
      );
    }
    const dataPath = this.dataPath(volumeId);
    if (!(await step(`${rpc}: checking ${dataPath}`, () => isPresent(host, dataPath)))) {
      throw new CsiError(
        "NotFound",
        `${rpc}: volume ${volumeId} has no data at ${dataPath} on node ${nodeId}; ` +
          "a hostpath volume lives on the node whose controller created it",
      );
    }
    return record;
  }

  private async stagedDirectory(record: VolumeRecord, stagingPath: string, rpc: string): Promise<string> {
    const { host } = this.options;
    const state = await step(`${rpc}: checking ${stagingPath}`, () => mountStateAt(host, stagingPath));
    const staged =
      state.kind === "mounted" &&
      (await step(`${rpc}: checking ${stagingPath}`, () =>
        showsSameFile(host, stagingPath, this.dataPath(record.volumeId)),
      ));
    if (!staged) {
      throw new CsiError(
        "FailedPrecondition",
        `${rpc}: volume ${record.volumeId} is not staged at ${stagingPath} (${state.kind}); call NodeStageVolume first`,
      );
    }
    return stagingPath;
  }

  private async stagedDevice(record: VolumeRecord, rpc: string): Promise<string> {
    const dataPath = this.dataPath(record.volumeId);
    const [device] = await step(`${rpc}: finding the loop device of ${dataPath}`, () =>
      loopDevicesOf(this.options.host, dataPath),
    );
    if (device === undefined) {
      throw new CsiError(
        "FailedPrecondition",
        `${rpc}: block volume ${record.volumeId} has no loop device; call NodeStageVolume first`,
      );
    }
    return device;
  }
}
