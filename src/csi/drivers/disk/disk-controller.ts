/**
 * The Controller service of disk.csi.kvol.io: a cloud disk per volume.
 *
 * - CreateVolume: a disk of the requested size, in the zone the accessibility requirements prefer
 *   (a node's zone under WaitForFirstConsumer), multi-attach when the class says `multiAttach:
 *   "true"` or a multi-node writer mode is asked for. Idempotent on `name`: the volume id is
 *   `disk-<sha256(name)>`, 25 bytes whatever the name's length.
 * - ControllerPublishVolume: attaches the disk to the node and answers the device path in
 *   publish_context. A disk attached read-write to one node is refused to another
 *   (FailedPrecondition naming the node it is on) unless it is multi-attach; an unknown volume or
 *   node is NotFound.
 * - ControllerUnpublishVolume: detaches; nothing attached is success.
 * - DeleteVolume: FailedPrecondition while the disk is attached anywhere.
 * - ControllerExpandVolume: grows the disk (never shrinks it); a filesystem volume then needs
 *   NodeExpandVolume to grow its filesystem. OFFLINE: FailedPrecondition while attached.
 */

import { createHash } from "node:crypto";
import { CsiError } from "../../grpc/errors.ts";
import type { CsiController } from "../../grpc/services.ts";
import type {
  ControllerExpandVolumeRequest,
  ControllerExpandVolumeResponse,
  ControllerGetCapabilitiesResponse,
  ControllerPublishVolumeRequest,
  ControllerPublishVolumeResponse,
  ControllerRpcType,
  ControllerUnpublishVolumeRequest,
  ControllerUnpublishVolumeResponse,
  CreateSnapshotRequest,
  CreateSnapshotResponse,
  CreateVolumeRequest,
  CreateVolumeResponse,
  DeleteSnapshotRequest,
  DeleteSnapshotResponse,
  DeleteVolumeRequest,
  DeleteVolumeResponse,
  GetCapacityRequest,
  GetCapacityResponse,
  ListSnapshotsRequest,
  ListSnapshotsResponse,
  ListVolumesRequest,
  ListVolumesResponse,
  StringMap,
  TopologyRequirement,
  ValidateVolumeCapabilitiesRequest,
  ValidateVolumeCapabilitiesResponse,
  Volume,
  VolumeCapability,
} from "../../proto/types.ts";
import { type CapacityLimits, capacityFits, capacityFor } from "../common/capacity.ts";
import {
  diskDefaultZone,
  diskDevicePathContextKey,
  diskMultiAttachParameter,
  diskSnapshotIdPrefix,
  diskTopologyKey,
  diskVolumeIdPrefix,
  volumeIdHashHexDigits,
} from "../common/constants.ts";
import { expandedCapacity, offlineExpansionRefused, type VolumeExpansionMode } from "../common/expansion.ts";
import { availableBytes, type CapacityPool, capacityResponse } from "../common/get-capacity.ts";
import { pageOf } from "../common/list-pages.ts";
import { OperationLocks } from "../common/operation-locks.ts";
import { requireIdField, requireMessage } from "../common/request-fields.ts";
import { RestoreHolds } from "../common/restore-holds.ts";
import { rpcCapabilities } from "../common/rpc-capabilities.ts";
import {
  type ContentSource,
  checkFitsSource,
  checkSameSource,
  contentSourceMessage,
  contentSourceOf,
  listSnapshotsPage,
  type SnapshotFacts,
  snapshotIdFor,
  snapshotMessage,
} from "../common/snapshot-rpcs.ts";
import {
  type CapabilitySupport,
  capabilityProblem,
  isSingleNodeMode,
  requireCapabilities,
  requireCapability,
} from "../common/volume-capabilities.ts";
import { type DiskBackend, type DiskView, diskCall, type SnapshotView } from "./disk-backend.ts";

interface DiskControllerOptions {
  disks: DiskBackend;
  support: CapabilitySupport;
  capacity: CapacityLimits;
  expansion: VolumeExpansionMode;
  pool: CapacityPool;
}

const volumeIdPattern = new RegExp(`^${diskVolumeIdPrefix}-[0-9a-f]{${volumeIdHashHexDigits}}$`);

/** The volume id (and disk id) of the volume CreateVolume makes for `name`. */
function diskVolumeIdFor(name: string): string {
  return `${diskVolumeIdPrefix}-${createHash("sha256").update(name).digest("hex").slice(0, volumeIdHashHexDigits)}`;
}

/** Modes that let several nodes write: the disk must then be multi-attach. */
function needsMultiAttach(capability: VolumeCapability): boolean {
  const mode = capability.accessMode?.mode;
  return mode === "MULTI_NODE_MULTI_WRITER" || mode === "MULTI_NODE_SINGLE_WRITER";
}

export class DiskController implements CsiController {
  private readonly locks = new OperationLocks();
  /** Snapshots a CreateVolume is restoring from now: DeleteSnapshot must not pull their data away. */
  private readonly restores = new RestoreHolds();

  constructor(private readonly options: DiskControllerOptions) {}

  createVolume(request: CreateVolumeRequest): Promise<CreateVolumeResponse> {
    const rpc = "CreateVolume";
    const name = requireIdField(request.name, "name", rpc);
    requireCapabilities(request.volumeCapabilities, "volume_capabilities", rpc, this.options.support);
    const source = contentSourceOf(request);
    const multiAttach =
      multiAttachParameter(request.parameters, rpc) || request.volumeCapabilities.some(needsMultiAttach);
    const capacityBytes = capacityFor(request.capacityRange, this.options.capacity, rpc);
    const zone = zoneOf(request.accessibilityRequirements);
    const volumeId = diskVolumeIdFor(name);
    return this.locks.run(`name ${name}`, async () => {
      const { disks } = this.options;
      if (await diskCall(rpc, () => disks.has(volumeId))) {
        const existing = await diskCall(rpc, () => disks.disk(volumeId));
        checkCompatible(existing, request, multiAttach);
        return { volume: volumeOf(existing, source) };
      }
      await this.checkSource(source, capacityBytes);
      const release = this.restores.hold(source);
      const disk = await diskCall(rpc, () =>
        disks.createDisk(volumeId, capacityBytes, {
          ...(zone === undefined ? {} : { zone }),
          multiAttach,
          ...(source === undefined ? {} : { source: diskSourceOf(source) }),
        }),
      ).finally(release);
      return { volume: volumeOf(disk, source) };
    });
  }

  /** NOT_FOUND for a missing snapshot or volume, OUT_OF_RANGE for one bigger than the new volume. */
  private async checkSource(source: ContentSource, capacityBytes: number): Promise<void> {
    if (source === undefined) return;
    const { disks } = this.options;
    const rpc = "CreateVolume";
    if ("snapshotId" in source) {
      if (!(await diskCall(rpc, () => disks.hasSnapshot(source.snapshotId)))) {
        throw new CsiError("NotFound", `${rpc}: source snapshot ${source.snapshotId} does not exist`);
      }
      const snapshot = await diskCall(rpc, () => disks.snapshot(source.snapshotId));
      checkFitsSource(capacityBytes, snapshot.sizeBytes, `snapshot ${source.snapshotId}`);
      return;
    }
    if (!(await diskCall(rpc, () => disks.has(source.volumeId)))) {
      throw new CsiError("NotFound", `${rpc}: source volume ${source.volumeId} does not exist`);
    }
    const disk = await diskCall(rpc, () => disks.disk(source.volumeId));
    checkFitsSource(capacityBytes, disk.sizeBytes, `volume ${source.volumeId}`);
  }

  createSnapshot(request: CreateSnapshotRequest): Promise<CreateSnapshotResponse> {
    const rpc = "CreateSnapshot";
    const name = requireIdField(request.name, "name", rpc);
    const sourceVolumeId = requireIdField(request.sourceVolumeId, "source_volume_id", rpc);
    const snapshotId = snapshotIdFor(diskSnapshotIdPrefix, name);
    const { disks } = this.options;
    return this.locks.run(`snapshot ${snapshotId}`, async () => {
      if (await diskCall(rpc, () => disks.hasSnapshot(snapshotId))) {
        const existing = factsOf(await diskCall(rpc, () => disks.snapshot(snapshotId)));
        checkSameSource(existing, { name, sourceVolumeId });
        return { snapshot: snapshotMessage(existing) };
      }
      if (!(await diskCall(rpc, () => disks.has(sourceVolumeId)))) {
        throw new CsiError("NotFound", `${rpc}: source volume ${sourceVolumeId} does not exist`);
      }
      const made = await diskCall(rpc, () => disks.createSnapshot(snapshotId, sourceVolumeId));
      return { snapshot: snapshotMessage(factsOf(made)) };
    });
  }

  deleteSnapshot(request: DeleteSnapshotRequest): Promise<DeleteSnapshotResponse> {
    const rpc = "DeleteSnapshot";
    const snapshotId = requireIdField(request.snapshotId, "snapshot_id", rpc);
    return this.locks.run(`snapshot ${snapshotId}`, async () => {
      this.restores.refuseDeleteWhileRestoring(snapshotId);
      await diskCall(rpc, () => this.options.disks.deleteSnapshot(snapshotId));
      return {};
    });
  }

  async listSnapshots(request: ListSnapshotsRequest): Promise<ListSnapshotsResponse> {
    const all = await diskCall("ListSnapshots", () => this.options.disks.listSnapshots());
    return listSnapshotsPage(all.map(factsOf), request);
  }

  deleteVolume(request: DeleteVolumeRequest): Promise<DeleteVolumeResponse> {
    const rpc = "DeleteVolume";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    return this.locks.run(`volume ${volumeId}`, async () => {
      if (!(await diskCall(rpc, () => this.options.disks.has(volumeId)))) return {};
      await diskCall(rpc, () => this.options.disks.deleteDisk(volumeId));
      return {};
    });
  }

  controllerPublishVolume(request: ControllerPublishVolumeRequest): Promise<ControllerPublishVolumeResponse> {
    const rpc = "ControllerPublishVolume";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    const nodeId = requireIdField(request.nodeId, "node_id", rpc);
    requireCapability(request.volumeCapability, "volume_capability", rpc, this.options.support);
    const capability = requireMessage(request.volumeCapability, "volume_capability", rpc);
    return this.locks.run(`volume ${volumeId}`, async () => {
      const disk = await diskCall(rpc, () => this.options.disks.disk(volumeId));
      const same = disk.attachments.get(nodeId);
      if (same !== undefined && same.readOnly !== request.readonly) {
        throw new CsiError(
          "AlreadyExists",
          `${rpc}: volume ${volumeId} is already published to node ${nodeId} with readonly=${same.readOnly}`,
        );
      }
      if (same === undefined && isSingleNodeMode(capability)) {
        const [other] = disk.attachments.keys();
        if (other !== undefined) {
          throw new CsiError(
            "FailedPrecondition",
            `${rpc}: volume ${volumeId} is attached to node ${other}; a single-node access mode cannot ` +
              `also publish it to node ${nodeId}: unpublish it there first`,
          );
        }
      }
      const devicePath = await diskCall(rpc, () =>
        this.options.disks.attach(volumeId, nodeId, { readOnly: request.readonly }),
      );
      return { publishContext: { [diskDevicePathContextKey]: devicePath } };
    });
  }

  controllerUnpublishVolume(request: ControllerUnpublishVolumeRequest): Promise<ControllerUnpublishVolumeResponse> {
    const rpc = "ControllerUnpublishVolume";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    return this.locks.run(`volume ${volumeId}`, async () => {
      // An unknown disk is attached nowhere: detached, as the spec asks.
      if (!(await diskCall(rpc, () => this.options.disks.has(volumeId)))) return {};
      const disk = await diskCall(rpc, () => this.options.disks.disk(volumeId));
      const nodes = request.nodeId === "" ? [...disk.attachments.keys()] : [request.nodeId];
      // Detaching a node the disk is not attached to is a no-op for the backend, and lets a real
      // one release a loop device an interrupted attach left unrecorded.
      for (const node of nodes) await diskCall(rpc, () => this.options.disks.detach(volumeId, node));
      return {};
    });
  }

  async validateVolumeCapabilities(
    request: ValidateVolumeCapabilitiesRequest,
  ): Promise<ValidateVolumeCapabilitiesResponse> {
    const rpc = "ValidateVolumeCapabilities";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    if (request.volumeCapabilities.length === 0) {
      throw new CsiError("InvalidArgument", `${rpc}: volume_capabilities is required`);
    }
    const disk = await diskCall(rpc, () => this.options.disks.disk(volumeId));
    for (const [index, capability] of request.volumeCapabilities.entries()) {
      const problem =
        capabilityProblem(capability, this.options.support) ??
        (needsMultiAttach(capability) && !disk.multiAttach
          ? `disk ${volumeId} is not multi-attach, so several nodes cannot write to it`
          : undefined);
      if (problem !== undefined) return { confirmed: null, message: `volume_capabilities[${index}]: ${problem}` };
    }
    return {
      confirmed: {
        volumeContext: request.volumeContext,
        volumeCapabilities: request.volumeCapabilities,
        parameters: request.parameters,
        mutableParameters: {},
      },
      message: "",
    };
  }

  async listVolumes(request: ListVolumesRequest): Promise<ListVolumesResponse> {
    const ours = (await diskCall("ListVolumes", () => this.options.disks.list()))
      .filter((disk) => volumeIdPattern.test(disk.id))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const page = pageOf(ours, request, "ListVolumes");
    return {
      entries: page.items.map((disk) => ({
        volume: volumeOf(disk),
        status: { publishedNodeIds: [...disk.attachments.keys()], volumeCondition: null },
      })),
      nextToken: page.nextToken,
    };
  }

  /**
   * What is left of the pool in the zone the request's topology names (every zone without one):
   * each disk's size is set aside from the pool of its zone.
   */
  async getCapacity(request: GetCapacityRequest): Promise<GetCapacityResponse> {
    const zone = request.accessibleTopology?.segments[diskTopologyKey];
    const disks = await diskCall("GetCapacity", () => this.options.disks.list());
    const allocated = disks
      .filter((disk) => zone === undefined || (disk.zone ?? diskDefaultZone) === zone)
      .reduce((sum, disk) => sum + disk.sizeBytes, 0);
    const { pool } = this.options;
    return capacityResponse(await availableBytes(pool, allocated), pool.maxVolumeBytes);
  }

  async controllerGetCapabilities(): Promise<ControllerGetCapabilitiesResponse> {
    return rpcCapabilities<ControllerRpcType>([
      "CREATE_DELETE_VOLUME",
      "PUBLISH_UNPUBLISH_VOLUME",
      "LIST_VOLUMES",
      "GET_CAPACITY",
      "LIST_VOLUMES_PUBLISHED_NODES",
      "PUBLISH_READONLY",
      "EXPAND_VOLUME",
      "CREATE_DELETE_SNAPSHOT",
      "LIST_SNAPSHOTS",
      "CLONE_VOLUME",
    ]);
  }

  controllerExpandVolume(request: ControllerExpandVolumeRequest): Promise<ControllerExpandVolumeResponse> {
    const rpc = "ControllerExpandVolume";
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    const accessType =
      request.volumeCapability === null
        ? undefined
        : requireCapability(request.volumeCapability, "volume_capability", rpc, this.options.support);
    return this.locks.run(`volume ${volumeId}`, async () => {
      const { disks } = this.options;
      const disk = await diskCall(rpc, () => disks.disk(volumeId));
      const sizeBytes = expandedCapacity(request.capacityRange, disk.sizeBytes, this.options.capacity, rpc);
      if (sizeBytes > disk.sizeBytes && this.options.expansion === "OFFLINE" && disk.attachments.size > 0) {
        const nodes = [...disk.attachments.keys()].join(", ");
        throw offlineExpansionRefused(rpc, "disk.csi.kvol.io", volumeId, `attached to node ${nodes}`);
      }
      const grown = await diskCall(rpc, () => disks.expandDisk(volumeId, sizeBytes));
      // A raw block volume is the device itself: nothing to grow on the node.
      return { capacityBytes: grown.sizeBytes, nodeExpansionRequired: accessType !== "block" };
    });
  }
}

function factsOf(snapshot: SnapshotView): SnapshotFacts {
  return {
    id: snapshot.id,
    sourceVolumeId: snapshot.sourceDiskId,
    sizeBytes: snapshot.sizeBytes,
    creationTimeMs: snapshot.creationTimeMs,
    readyToUse: snapshot.readyToUse,
  };
}

function diskSourceOf(source: Exclude<ContentSource, undefined>): { snapshotId: string } | { diskId: string } {
  return "snapshotId" in source ? { snapshotId: source.snapshotId } : { diskId: source.volumeId };
}

function volumeOf(disk: DiskView, source?: ContentSource): Volume {
  return {
    capacityBytes: disk.sizeBytes,
    volumeId: disk.id,
    volumeContext: {},
    contentSource: contentSourceMessage(source),
    accessibleTopology: [{ segments: { [diskTopologyKey]: disk.zone ?? diskDefaultZone } }],
  };
}

/** `multiAttach: "true"|"false"`; any other parameter is one this driver does not know. */
function multiAttachParameter(parameters: StringMap, rpc: string): boolean {
  for (const key of Object.keys(parameters)) {
    if (key !== diskMultiAttachParameter) {
      throw new CsiError(
        "InvalidArgument",
        `${rpc}: parameter ${JSON.stringify(key)} is not known to disk.csi.kvol.io (it takes "${diskMultiAttachParameter}")`,
      );
    }
  }
  const value = parameters[diskMultiAttachParameter];
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  throw new CsiError(
    "InvalidArgument",
    `${rpc}: parameter ${diskMultiAttachParameter} must be "true" or "false", got ${JSON.stringify(value)}`,
  );
}

/** The zone to create the disk in: the first preferred topology's, else the first requisite one's. */
function zoneOf(requirement: TopologyRequirement | null): string | undefined {
  if (requirement === null) return undefined;
  const zone = [...requirement.preferred, ...requirement.requisite]
    .map((topology) => topology.segments[diskTopologyKey])
    .find((value) => value !== undefined);
  return zone === diskDefaultZone ? undefined : zone;
}

function checkCompatible(existing: DiskView, request: CreateVolumeRequest, multiAttach: boolean): void {
  const problems: string[] = [];
  if (!capacityFits(existing.sizeBytes, request.capacityRange)) {
    problems.push(`its ${existing.sizeBytes} bytes are outside the requested capacity_range`);
  }
  if (existing.multiAttach !== multiAttach) {
    problems.push(existing.multiAttach ? "it is multi-attach" : "it is not multi-attach");
  }
  if (problems.length > 0) {
    throw new CsiError(
      "AlreadyExists",
      `CreateVolume: a volume named ${request.name} already exists (${existing.id}) but ${problems.join(" and ")}`,
    );
  }
}
