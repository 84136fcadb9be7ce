/**
 * The Node service of disk.csi.kvol.io, acting on the node through its Host, as a cloud disk
 * driver's node plugin does:
 *
 * - NodeStageVolume: finds the attached disk's device (publish_context `devicePath`), formats it
 *   when it holds nothing (ext4 unless the capability names a filesystem) and mounts it on the
 *   staging path; a block volume needs no staging.
 * - NodePublishVolume: bind-mounts the staging mount on the pod's target directory (read-only
 *   when asked); a block volume's device is bound onto the pod's target file.
 * - NodeUnpublishVolume / NodeUnstageVolume: mount-utils' CleanupMountPoint (the path goes too).
 * - NodeExpandVolume: grows the filesystem on the disk's device to the disk's size (resize2fs,
 *   xfs_growfs), online; a block volume needs nothing. OFFLINE: FailedPrecondition while a pod
 *   has it mounted and the filesystem still needs to grow. A kernel that refuses an online resize
 *   (no CAP_SYS_RESOURCE) is reported as Internal, naming the cause.
 * - NodeStageVolume grows an ext filesystem to the disk's size before mounting it (resize2fs on the
 *   unmounted device): a disk grown while no pod used it, or while the node could not grow it
 *   mounted, shows its full size to the next pod; NodeExpandVolume then has nothing left to do.
 * - NodeGetInfo: the node id, the attach limit and the node's zone (topology).
 *
 * Every call is idempotent: a staging path that already shows the device, a target already bound,
 * succeed again without doing the work twice.
 */
import { posix } from "node:path";
import { type Host, isHostError } from "../../../host/host.ts";
import { cleanupMountPoint } from "../../../host/mount/cleanup-mount-point.ts";
import type { Mounter } from "../../../host/mount/mounter.ts";
import { onlineResizeDeniedText, resizeFs, resizeUnmountedExtFs } from "../../../host/mount/resize-fs.ts";
import { SafeFormatAndMount } from "../../../host/mount/safe-format-and-mount.ts";
import { diskDevicePath } from "../../../host/sim/world/disk-provider.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
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
  StringMap,
} from "../../proto/types.ts";
import { bindPublished } from "../common/bind-mount.ts";
import {
  diskDefaultZone,
  diskDevicePathContextKey,
  diskTopologyKey,
  mountDirMode,
  volumeTreeEntriesMax,
} from "../common/constants.ts";
import { checkNodeExpansionRange, offlineExpansionRefused, type VolumeExpansionMode } from "../common/expansion.ts";
import { step } from "../common/host-failures.ts";
import { type MountState, mountStateAt } from "../common/mount-state.ts";
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
import { treeUsage } from "../common/volume-tree.ts";
import { type DiskBackend, type DiskView, diskCall } from "./disk-backend.ts";

interface DiskNodeOptions {
  host: Host;
  mounter: Mounter;
  nodeId: string;
  /** The node's zone; undefined reports diskDefaultZone. */
  zone: string | undefined;
  disks: DiskBackend;
  support: CapabilitySupport;
  maxVolumesPerNode: number;
  expansion: VolumeExpansionMode;
}

export class DiskNode implements CsiNode {
  private readonly locks = new OperationLocks();
  /** Volume id → the disk size its filesystem was grown to at its last NodeStageVolume (this process's memory). */
  private readonly grownBeforeMount = new Map<string, number>();
  /** Volume id → why growing it at NodeStageVolume failed. */
  private readonly offlineGrowFailures = new Map<string, string>();

  constructor(private readonly options: DiskNodeOptions) {}

  nodeStageVolume(request: NodeStageVolumeRequest): Promise<NodeStageVolumeResponse> {
    const rpc = "NodeStageVolume";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    const stagingPath = requirePathField(request.stagingTargetPath, "staging_target_path", rpc);
    const accessType = requireCapability(request.volumeCapability, "volume_capability", rpc, this.options.support);
    return this.locks.run(`volume ${volumeId}`, async () => {
      const disk = await this.requireDisk(volumeId, rpc);
      const device = await this.attachedDevice(disk, request.publishContext, rpc);
      if (accessType === "block") return {};
      const state = await step(`${rpc}: checking ${stagingPath}`, () => mountStateAt(this.options.host, stagingPath));
      if (state.kind === "mounted") {
        if (await this.showsDevice(state, device)) return {};
        throw new CsiError(
          "AlreadyExists",
          `${rpc}: staging_target_path ${stagingPath} already holds another mount (${state.entry.source}); unmount it first`,
        );
      }
      if (state.kind === "corrupted") {
        await step(`${rpc}: unmounting the corrupted mount at ${stagingPath}`, () =>
          this.options.mounter.unmount(stagingPath),
        );
      }
      if (state.kind === "absent") {
        await step(`${rpc}: creating ${stagingPath}`, () =>
          this.options.host.mkdir(stagingPath, mountDirMode, { recursive: true }),
        );
      }
      await this.growBeforeMount(volumeId, disk.sizeBytes, device);
      const fsType = request.volumeCapability?.mount?.fsType ?? "";
      await step(`${rpc}: formatting and mounting ${device} on ${stagingPath}`, () =>
        new SafeFormatAndMount(this.options.mounter).formatAndMount(
          device,
          stagingPath,
          fsType,
          mountFlagsOf(request.volumeCapability),
        ),
      );
      return {};
    });
  }

  /**
   * Grows an ext filesystem to the disk's size while nothing mounts it: the disk may have grown
   * while no pod used it (offline expansion), or while this node could not grow it mounted. A
   * failure does not keep the volume from being staged; NodeExpandVolume reports it.
   */
  private async growBeforeMount(volumeId: string, diskBytes: number, device: string): Promise<void> {
    try {
      await resizeUnmountedExtFs(this.options.host, device);
      this.grownBeforeMount.set(volumeId, diskBytes);
      this.offlineGrowFailures.delete(volumeId);
    } catch (error) {
      this.offlineGrowFailures.set(volumeId, errorMessage(error));
    }
  }

  nodeUnstageVolume(request: NodeUnstageVolumeRequest): Promise<NodeUnstageVolumeResponse> {
    const rpc = "NodeUnstageVolume";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    const stagingPath = requirePathField(request.stagingTargetPath, "staging_target_path", rpc);
    return this.locks.run(`volume ${volumeId}`, async () => {
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
    const accessType = requireCapability(request.volumeCapability, "volume_capability", rpc, this.options.support);
    const stagingPath = requirePublishStagingPath(request.stagingTargetPath, rpc);
    return this.locks.run(`target ${targetPath}`, async () => {
      const disk = await this.requireDisk(volumeId, rpc);
      const device = await this.attachedDevice(disk, request.publishContext, rpc);
      const block = accessType === "block";
      const source = block ? device : await this.stagedMount(volumeId, stagingPath, device, rpc);
      await bindPublished(this.options.host, this.options.mounter, { rpc, source, target: targetPath, block, request });
      return {};
    });
  }

  nodeUnpublishVolume(request: NodeUnpublishVolumeRequest): Promise<NodeUnpublishVolumeResponse> {
    const rpc = "NodeUnpublishVolume";
    requireIdField(request.volumeId, "volume_id", rpc);
    const targetPath = requirePathField(request.targetPath, "target_path", rpc);
    return this.locks.run(`target ${targetPath}`, async () => {
      await step(`${rpc}: cleaning up ${targetPath}`, () =>
        cleanupMountPoint(this.options.host, this.options.mounter, targetPath, true),
      );
      return {};
    });
  }

  async nodeGetVolumeStats(request: NodeGetVolumeStatsRequest): Promise<NodeGetVolumeStatsResponse> {
    const rpc = "NodeGetVolumeStats";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    requireField(request.volumePath, "volume_path", rpc);
    const disk = await diskCall(rpc, () => this.options.disks.disk(volumeId));
    const volumePath = requireStatsPath(request.volumePath, volumeId, rpc);
    const { host } = this.options;
    const state = await step(`${rpc}: checking ${volumePath}`, () => mountStateAt(host, volumePath));
    if (state.kind === "absent") {
      throw new CsiError("NotFound", `${rpc}: volume ${volumeId} is not present at volume_path ${volumePath}`);
    }
    if (state.kind !== "mounted") {
      const why = state.kind === "corrupted" ? `a corrupted mount: ${state.error.message}` : "nothing is mounted there";
      return {
        usage: [],
        volumeCondition: { abnormal: true, message: `${volumePath} does not serve ${volumeId}: ${why}` },
      };
    }
    const total = disk.sizeBytes;
    const isBlock = (await step(`${rpc}: checking ${volumePath}`, () => host.stat(volumePath))).type !== "directory";
    const used = isBlock
      ? 0
      : (await step(`${rpc}: measuring ${volumePath}`, () => treeUsage(host, volumePath, volumeTreeEntriesMax)))
          .usedBytes;
    return {
      usage: [{ total, used, available: Math.max(0, total - used), unit: "BYTES" }],
      volumeCondition: { abnormal: false, message: "" },
    };
  }

  nodeExpandVolume(request: NodeExpandVolumeRequest): Promise<NodeExpandVolumeResponse> {
    const rpc = "NodeExpandVolume";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    requireField(request.volumePath, "volume_path", rpc);
    if (request.volumeCapability !== null) {
      requireCapability(request.volumeCapability, "volume_capability", rpc, this.options.support);
    }
    return this.locks.run(`volume ${volumeId}`, async () => {
      const disk = await this.requireDisk(volumeId, rpc);
      const volumePath = requireStatsPath(request.volumePath, volumeId, rpc);
      checkNodeExpansionRange(request.capacityRange, disk.sizeBytes, volumeId, rpc);
      const { host } = this.options;
      const state = await step(`${rpc}: checking ${volumePath}`, () => mountStateAt(host, volumePath));
      if (state.kind === "absent") {
        throw new CsiError("NotFound", `${rpc}: volume ${volumeId} is not present at volume_path ${volumePath}`);
      }
      const device = await this.attachedDevice(disk, {}, rpc);
      const isBlock = (await step(`${rpc}: checking ${volumePath}`, () => host.stat(volumePath))).type !== "directory";
      if (isBlock) return { capacityBytes: disk.sizeBytes };
      if (state.kind !== "mounted" || !(await this.showsDevice(state, device))) {
        throw new CsiError(
          "FailedPrecondition",
          `${rpc}: volume ${volumeId} is not mounted at volume_path ${volumePath}; stage or publish it first`,
        );
      }
      // Grown to the whole disk when it was last staged (no pod had it then): nothing is left to do.
      if ((this.grownBeforeMount.get(volumeId) ?? 0) >= disk.sizeBytes) return { capacityBytes: disk.sizeBytes };
      if (this.options.expansion === "OFFLINE") {
        const inUse = await this.podMountsOf(device, request.stagingTargetPath || volumePath);
        if (inUse.length > 0) {
          throw offlineExpansionRefused(rpc, "disk.csi.kvol.io", volumeId, `mounted at ${inUse.join(", ")}`);
        }
      }
      await this.growMounted(rpc, volumeId, device, volumePath);
      return { capacityBytes: disk.sizeBytes };
    });
  }

  /** Online growth; a kernel that refuses it (no CAP_SYS_RESOURCE) is named, with the way out. */
  private async growMounted(rpc: string, volumeId: string, device: string, volumePath: string): Promise<void> {
    try {
      await resizeFs(this.options.host, device, volumePath);
    } catch (error) {
      const detail = errorMessage(error);
      const offline = this.offlineGrowFailures.get(volumeId);
      const cause = detail.includes(onlineResizeDeniedText)
        ? "; the node plugin cannot grow a mounted filesystem (online resize needs CAP_SYS_RESOURCE); " +
          "it grows before the next mount: restart the pod"
        : "";
      const earlier = offline === undefined ? "" : `; growing it before the last mount failed too: ${offline}`;
      throw new CsiError("Internal", `${rpc}: growing the filesystem on ${device} failed: ${detail}${cause}${earlier}`);
    }
  }

  async nodeGetCapabilities(): Promise<NodeGetCapabilitiesResponse> {
    return rpcCapabilities<NodeRpcType>([
      "STAGE_UNSTAGE_VOLUME",
      "GET_VOLUME_STATS",
      "VOLUME_CONDITION",
      "EXPAND_VOLUME",
    ]);
  }

  async nodeGetInfo(): Promise<NodeGetInfoResponse> {
    const { nodeId, maxVolumesPerNode, zone } = this.options;
    return {
      nodeId,
      maxVolumesPerNode,
      accessibleTopology: { segments: { [diskTopologyKey]: zone ?? diskDefaultZone } },
    };
  }

  private requireDisk(volumeId: string, rpc: string): Promise<DiskView> {
    return diskCall(rpc, () => this.options.disks.disk(volumeId));
  }

  /**
   * The disk's device on this node; FailedPrecondition when it is not attached here. The backend's
   * attachments are asked first: on one machine a loop device is visible to every node, attached
   * to it or not. A backend that knows the device now is believed over publish_context, whose loop
   * device may since have been released and given to another disk (formatting that would be data
   * loss).
   */
  private async attachedDevice(disk: DiskView, publishContext: StringMap, rpc: string): Promise<string> {
    const volumeId = disk.id;
    if (!disk.attachments.has(this.options.nodeId)) {
      throw new CsiError(
        "FailedPrecondition",
        `${rpc}: volume ${volumeId} is not attached to node ${this.options.nodeId}; ControllerPublishVolume attaches it`,
      );
    }
    const { disks, nodeId } = this.options;
    const currentDevice = disks.attachedDevice?.bind(disks);
    const device =
      currentDevice === undefined
        ? publishContext[diskDevicePathContextKey] || diskDevicePath(volumeId)
        : await diskCall(rpc, () => currentDevice(volumeId, nodeId));
    let type: string;
    try {
      type = (await this.options.host.stat(device)).type;
    } catch (error) {
      if (!isHostError(error, "ENOENT")) throw new CsiError("Internal", `${rpc}: checking ${device}: ${String(error)}`);
      throw new CsiError(
        "FailedPrecondition",
        `${rpc}: volume ${volumeId} is not attached to node ${this.options.nodeId}: no device at ${device}; ` +
          "ControllerPublishVolume attaches it",
      );
    }
    if (type !== "blockDevice") {
      throw new CsiError("FailedPrecondition", `${rpc}: ${device} is a ${type}, not the block device of ${volumeId}`);
    }
    return device;
  }

  /** The staging path, which must show the device's filesystem. */
  private async stagedMount(volumeId: string, stagingPath: string, device: string, rpc: string): Promise<string> {
    const state = await step(`${rpc}: checking ${stagingPath}`, () => mountStateAt(this.options.host, stagingPath));
    if (state.kind === "mounted" && (await this.showsDevice(state, device))) return stagingPath;
    throw new CsiError(
      "FailedPrecondition",
      `${rpc}: volume ${volumeId} is not staged at ${stagingPath} (${state.kind}); call NodeStageVolume first`,
    );
  }

  /** Mount points of the device other than its staging path: where pods use it. */
  private async podMountsOf(device: string, stagingPath: string): Promise<string[]> {
    const resolved = await resolveLink(this.options.host, device);
    return (await this.options.host.mountInfo())
      .filter((mount) => (mount.source === device || mount.source === resolved) && mount.mountPoint !== stagingPath)
      .map((mount) => mount.mountPoint);
  }

  /** Whether the mount's source is the device (its by-id link resolved to /dev/sdX). */
  private async showsDevice(state: MountState & { kind: "mounted" }, device: string): Promise<boolean> {
    const source = state.entry.source;
    if (source === device) return true;
    return source === (await resolveLink(this.options.host, device));
  }
}

/** `path` with one symlink level resolved (`/dev/disk/by-id/virtio-x` → `/dev/sdb`). */
async function resolveLink(host: Host, path: string): Promise<string> {
  if ((await host.lstat(path)).type !== "symlink") return path;
  const target = await host.readlink(path);
  return posix.resolve(posix.dirname(path), target);
}
