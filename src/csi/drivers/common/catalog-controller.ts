/**
 * The Controller service shared by the bundled drivers that keep their volumes in a VolumeCatalog
 * (hostpath, fuse): CreateVolume idempotent on `name`, DeleteVolume idempotent on the id,
 * ControllerPublish/Unpublish bookkeeping (when the driver requires attach), ValidateVolumeCapabilities
 * and paged ListVolumes, with the error codes the CSI spec gives for each case; with a snapshot
 * store, snapshots, restores and clones (catalog-snapshots.ts). What a volume's data is — a
 * directory, a sparse file — is the driver's VolumeStorage.
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
  Topology,
  TopologyRequirement,
  ValidateVolumeCapabilitiesRequest,
  ValidateVolumeCapabilitiesResponse,
  Volume,
} from "../../proto/types.ts";
import { type CapacityLimits, capacityFits, capacityFor } from "./capacity.ts";
import { CatalogSnapshots, type SourceData } from "./catalog-snapshots.ts";
import { volumeIdHashHexDigits } from "./constants.ts";
import { expandedCapacity, offlineExpansionRefused, type VolumeExpansionMode } from "./expansion.ts";
import { availableBytes, type CapacityPool, capacityResponse, topologyExcludes } from "./get-capacity.ts";
import type { HostSnapshotStore } from "./host-snapshots.ts";
import { pageOf } from "./list-pages.ts";
import { OperationLocks } from "./operation-locks.ts";
import { requireIdField } from "./request-fields.ts";
import { rpcCapabilities } from "./rpc-capabilities.ts";
import { type ContentSource, contentSourceMessage, contentSourceOf } from "./snapshot-rpcs.ts";
import {
  type AccessType,
  accessTypeOf,
  type CapabilitySupport,
  capabilityProblem,
  isSingleNodeMode,
  requireCapabilities,
  requireCapability,
} from "./volume-capabilities.ts";
import type { VolumeCatalog, VolumeRecord } from "./volume-catalog.ts";

/** Where a driver keeps a volume's data. Both calls must be idempotent: a retry repeats them. */
export interface VolumeStorage {
  create(record: VolumeRecord): Promise<void>;
  /** Deletes the data; a CsiError FailedPrecondition when it is still in use. */
  remove(record: VolumeRecord): Promise<void>;
  /** Grows the data to `sizeBytes` (a block volume's file); idempotent. */
  expand(record: VolumeRecord, sizeBytes: number): Promise<void>;
  /** Creates the volume as a copy of the data at `sourcePath` (restore, clone). */
  createFrom(record: VolumeRecord, sourcePath: string): Promise<void>;
  /** Where the volume's data is on the controller's Host. */
  dataPath(record: VolumeRecord): string;
}

/** A controller whose volumes live on one node only (hostpath): topology pins them there. */
interface NodeLocalPlacement {
  nodeId: string;
  /** The topology segment key (`topology.hostpath.csi.kvol.io/node`). */
  topologyKey: string;
}

interface CatalogControllerOptions {
  driverName: string;
  catalog: VolumeCatalog;
  storage: VolumeStorage;
  support: CapabilitySupport;
  capacity: CapacityLimits;
  /** Volume ids are `<prefix>-<hash of name>`. */
  volumeIdPrefix: string;
  /** Offer ControllerPublish/Unpublish (PUBLISH_UNPUBLISH_VOLUME): Kubernetes then attaches through a VolumeAttachment. */
  attachRequired: boolean;
  nodeLocal?: NodeLocalPlacement;
  /** Offer ControllerExpandVolume (EXPAND_VOLUME), online or offline; undefined: volumes never grow. */
  expansion?: VolumeExpansionMode;
  /** Where the bytes come from; with it the controller offers GET_CAPACITY. */
  pool?: CapacityPool;
  /** Where snapshots are kept; with it the controller offers snapshots, restores and clones. */
  snapshotStore?: HostSnapshotStore;
  /** The nodes ControllerPublishVolume may publish to (others are NotFound); default: any. */
  isKnownNode?: (nodeId: string) => boolean;
}

export class CatalogController implements CsiController {
  private readonly locks = new OperationLocks();
  private readonly snapshots: CatalogSnapshots | undefined;

  constructor(private readonly options: CatalogControllerOptions) {
    const store = options.snapshotStore;
    this.snapshots =
      store === undefined
        ? undefined
        : new CatalogSnapshots({
            store,
            catalog: options.catalog,
            dataPathOf: (record) => options.storage.dataPath(record),
            locks: this.locks,
            ...(options.nodeLocal === undefined ? {} : { nodeId: options.nodeLocal.nodeId }),
          });
  }

  createVolume(request: CreateVolumeRequest): Promise<CreateVolumeResponse> {
    const rpc = "CreateVolume";
    const name = requireIdField(request.name, "name", rpc);
    return this.locks.run(`name ${name}`, async () => {
      const accessType = requireCapabilities(
        request.volumeCapabilities,
        "volume_capabilities",
        rpc,
        this.options.support,
      );
      const source = this.contentSource(request);
      const capacityBytes = capacityFor(request.capacityRange, this.options.capacity, rpc);
      this.checkTopology(request.accessibilityRequirements);
      const existing = await this.options.catalog.findByName(name);
      if (existing !== undefined) {
        this.checkCompatible(existing, request, accessType, source);
        return { volume: this.volumeOf(existing) };
      }
      const snapshots = this.snapshots;
      if (source === undefined || snapshots === undefined) {
        return { volume: this.volumeOf(await this.createRecord(name, capacityBytes, accessType, request, undefined)) };
      }
      // The source snapshot stays in use (DeleteSnapshot refuses it) until its data is copied.
      const release = snapshots.holdSource(source);
      try {
        const sourceData = await snapshots.sourceData(source, capacityBytes, accessType);
        return { volume: this.volumeOf(await this.createRecord(name, capacityBytes, accessType, request, sourceData)) };
      } finally {
        release();
      }
    });
  }

  private async createRecord(
    name: string,
    capacityBytes: number,
    accessType: AccessType,
    request: CreateVolumeRequest,
    sourceData: SourceData | undefined,
  ): Promise<VolumeRecord> {
    const record: VolumeRecord = {
      volumeId: this.volumeIdFor(name),
      name,
      capacityBytes,
      accessType,
      parameters: { ...request.parameters },
      ...(this.options.nodeLocal === undefined ? {} : { nodeId: this.options.nodeLocal.nodeId }),
      ...(sourceData === undefined ? {} : { contentSource: sourceData.contentSource }),
      publications: [],
    };
    if (sourceData === undefined) await this.options.storage.create(record);
    else await this.options.storage.createFrom(record, sourceData.path);
    await this.options.catalog.put(record);
    return record;
  }

  deleteVolume(request: DeleteVolumeRequest): Promise<DeleteVolumeResponse> {
    const volumeId = requireIdField(request.volumeId, "volume_id", "DeleteVolume");
    return this.locks.run(`volume ${volumeId}`, async () => {
      const record = await this.options.catalog.get(volumeId);
      if (record === undefined) return {};
      if (record.publications.length > 0) {
        const nodes = record.publications.map((publication) => publication.nodeId).join(", ");
        throw new CsiError(
          "FailedPrecondition",
          `volume ${volumeId} is still published to node(s) ${nodes}; unpublish it before deleting it`,
        );
      }
      await this.options.storage.remove(record);
      await this.options.catalog.remove(volumeId);
      return {};
    });
  }

  controllerPublishVolume(request: ControllerPublishVolumeRequest): Promise<ControllerPublishVolumeResponse> {
    const rpc = "ControllerPublishVolume";
    this.requireAttach(rpc);
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    const nodeId = requireIdField(request.nodeId, "node_id", rpc);
    const accessType = requireCapability(request.volumeCapability, "volume_capability", rpc, this.options.support);
    const singleNode = request.volumeCapability !== null && isSingleNodeMode(request.volumeCapability);
    if (this.options.isKnownNode !== undefined && !this.options.isKnownNode(nodeId)) {
      throw new CsiError("NotFound", `${rpc}: node ${nodeId} does not exist`);
    }
    return this.locks.run(`volume ${volumeId}`, async () => {
      const record = await this.requireRecord(volumeId, rpc);
      checkAccessType(record, accessType, rpc);
      if (record.nodeId !== undefined && record.nodeId !== nodeId) {
        throw new CsiError(
          "FailedPrecondition",
          `${rpc}: volume ${volumeId} lives on node ${record.nodeId} and cannot be published to node ${nodeId}`,
        );
      }
      const same = record.publications.find((publication) => publication.nodeId === nodeId);
      if (same !== undefined) {
        if (same.readonly !== request.readonly) {
          throw new CsiError(
            "AlreadyExists",
            `${rpc}: volume ${volumeId} is already published to node ${nodeId} with readonly=${same.readonly}`,
          );
        }
        return { publishContext: {} };
      }
      const conflict = record.publications.find((publication) => publication.singleNode || singleNode);
      if (conflict !== undefined) {
        throw new CsiError(
          "FailedPrecondition",
          `${rpc}: volume ${volumeId} is published to node ${conflict.nodeId} with a single-node access mode; ` +
            `unpublish it there before publishing it to node ${nodeId}`,
        );
      }
      record.publications.push({ nodeId, readonly: request.readonly, singleNode });
      await this.options.catalog.put(record);
      return { publishContext: {} };
    });
  }

  controllerUnpublishVolume(request: ControllerUnpublishVolumeRequest): Promise<ControllerUnpublishVolumeResponse> {
    const rpc = "ControllerUnpublishVolume";
    this.requireAttach(rpc);
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    return this.locks.run(`volume ${volumeId}`, async () => {
      // An unknown volume cannot be published anywhere: detached, as the spec asks.
      const record = await this.options.catalog.get(volumeId);
      if (record === undefined) return {};
      const kept = record.publications.filter(
        (publication) => request.nodeId !== "" && publication.nodeId !== request.nodeId,
      );
      if (kept.length === record.publications.length) return {};
      await this.options.catalog.put({ ...record, publications: kept });
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
    const record = await this.requireRecord(volumeId, rpc);
    for (const [index, capability] of request.volumeCapabilities.entries()) {
      const problem =
        capabilityProblem(capability, this.options.support) ??
        (accessTypeOf(capability) === record.accessType
          ? undefined
          : `volume ${volumeId} is a ${record.accessType} volume`);
      if (problem !== undefined) return { confirmed: null, message: `volume_capabilities[${index}]: ${problem}` };
    }
    if (Object.keys(request.parameters).length > 0 && !sameStringMap(request.parameters, record.parameters)) {
      return { confirmed: null, message: `parameters differ from those volume ${volumeId} was created with` };
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
    const page = pageOf(await this.options.catalog.list(), request, "ListVolumes");
    return {
      entries: page.items.map((record) => ({
        volume: this.volumeOf(record),
        status: {
          publishedNodeIds: record.publications.map((publication) => publication.nodeId),
          volumeCondition: null,
        },
      })),
      nextToken: page.nextToken,
    };
  }

  /** The pool's bytes not yet set aside for this instance's volumes; 0 for a segment that is not this node's. */
  async getCapacity(request: GetCapacityRequest): Promise<GetCapacityResponse> {
    const { pool, nodeLocal } = this.options;
    if (pool === undefined) {
      throw new CsiError("Unimplemented", `GetCapacity: ${this.options.driverName} does not report capacity`);
    }
    if (nodeLocal !== undefined && topologyExcludes(request, nodeLocal.topologyKey, nodeLocal.nodeId)) {
      return capacityResponse(0, pool.maxVolumeBytes);
    }
    const records = await this.options.catalog.list();
    const mine = records.filter((record) => nodeLocal === undefined || record.nodeId === nodeLocal.nodeId);
    const allocated = mine.reduce((sum, record) => sum + record.capacityBytes, 0);
    return capacityResponse(await availableBytes(pool, allocated), pool.maxVolumeBytes);
  }

  async controllerGetCapabilities(): Promise<ControllerGetCapabilitiesResponse> {
    const types: ControllerRpcType[] = ["CREATE_DELETE_VOLUME", "LIST_VOLUMES", "SINGLE_NODE_MULTI_WRITER"];
    if (this.options.pool !== undefined) types.push("GET_CAPACITY");
    if (this.options.attachRequired) types.push("PUBLISH_UNPUBLISH_VOLUME", "LIST_VOLUMES_PUBLISHED_NODES");
    if (this.options.expansion !== undefined) types.push("EXPAND_VOLUME");
    if (this.snapshots !== undefined) types.push("CREATE_DELETE_SNAPSHOT", "LIST_SNAPSHOTS", "CLONE_VOLUME");
    return rpcCapabilities(types);
  }

  async createSnapshot(request: CreateSnapshotRequest): Promise<CreateSnapshotResponse> {
    return this.requireSnapshots("CreateSnapshot").createSnapshot(request);
  }

  async deleteSnapshot(request: DeleteSnapshotRequest): Promise<DeleteSnapshotResponse> {
    return this.requireSnapshots("DeleteSnapshot").deleteSnapshot(request);
  }

  async listSnapshots(request: ListSnapshotsRequest): Promise<ListSnapshotsResponse> {
    return this.requireSnapshots("ListSnapshots").listSnapshots(request);
  }

  private requireSnapshots(rpc: string): CatalogSnapshots {
    if (this.snapshots === undefined) {
      throw new CsiError("Unimplemented", `${rpc}: ${this.options.driverName} does not take snapshots`);
    }
    return this.snapshots;
  }

  /** CreateVolume's content source; INVALID_ARGUMENT from a driver that neither restores nor clones. */
  private contentSource(request: CreateVolumeRequest): ContentSource {
    if (request.volumeContentSource === null) return undefined;
    if (this.snapshots === undefined) {
      throw new CsiError(
        "InvalidArgument",
        `CreateVolume: volume_content_source is not supported by ${this.options.driverName}`,
      );
    }
    return contentSourceOf(request);
  }

  async controllerExpandVolume(request: ControllerExpandVolumeRequest): Promise<ControllerExpandVolumeResponse> {
    const rpc = "ControllerExpandVolume";
    const { expansion, driverName } = this.options;
    if (expansion === undefined) throw new CsiError("Unimplemented", `${rpc}: ${driverName} does not expand volumes`);
    const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
    const accessType =
      request.volumeCapability === null
        ? undefined
        : requireCapability(request.volumeCapability, "volume_capability", rpc, this.options.support);
    return this.locks.run(`volume ${volumeId}`, async () => {
      const record = await this.options.catalog.get(volumeId);
      if (record === undefined) throw new CsiError("NotFound", `${rpc}: volume ${volumeId} does not exist`);
      if (accessType !== undefined) checkAccessType(record, accessType, rpc);
      const sizeBytes = expandedCapacity(request.capacityRange, record.capacityBytes, this.options.capacity, rpc);
      if (sizeBytes > record.capacityBytes && expansion === "OFFLINE" && record.publications.length > 0) {
        const nodes = record.publications.map((publication) => publication.nodeId).join(", ");
        throw offlineExpansionRefused(rpc, driverName, volumeId, `published to node ${nodes}`);
      }
      if (sizeBytes > record.capacityBytes) {
        await this.options.storage.expand(record, sizeBytes);
        await this.options.catalog.put({ ...record, capacityBytes: sizeBytes });
      }
      // The node plugin checks the new size against the volume and reports it (csi-driver-host-path does the same).
      return { capacityBytes: sizeBytes, nodeExpansionRequired: true };
    });
  }

  private volumeIdFor(name: string): string {
    const hash = createHash("sha256").update(name).digest("hex").slice(0, volumeIdHashHexDigits);
    return `${this.options.volumeIdPrefix}-${hash}`;
  }

  private volumeOf(record: VolumeRecord): Volume {
    return {
      capacityBytes: record.capacityBytes,
      volumeId: record.volumeId,
      volumeContext: {},
      contentSource: contentSourceMessage(record.contentSource),
      accessibleTopology: this.topologyOf(record),
    };
  }

  private topologyOf(record: VolumeRecord): Topology[] {
    const placement = this.options.nodeLocal;
    if (placement === undefined || record.nodeId === undefined) return [];
    return [{ segments: { [placement.topologyKey]: record.nodeId } }];
  }

  /** A node-local controller can only honour requirements that allow its own node. */
  private checkTopology(requirement: TopologyRequirement | null): void {
    const placement = this.options.nodeLocal;
    if (placement === undefined || requirement === null || requirement.requisite.length === 0) return;
    const allowsThisNode = requirement.requisite.some((topology) => {
      const value = topology.segments[placement.topologyKey];
      return value === undefined || value === placement.nodeId;
    });
    if (!allowsThisNode) {
      const wanted = requirement.requisite.map((topology) => JSON.stringify(topology.segments)).join(", ");
      throw new CsiError(
        "ResourceExhausted",
        `CreateVolume: this controller creates volumes on node ${placement.nodeId} only, ` +
          `which none of the requisite topologies (${wanted}) allows`,
      );
    }
  }

  private checkCompatible(
    existing: VolumeRecord,
    request: CreateVolumeRequest,
    accessType: string,
    source: ContentSource,
  ): void {
    const problems: string[] = [];
    if (JSON.stringify(existing.contentSource) !== JSON.stringify(source)) {
      problems.push("it was created from another volume_content_source");
    }
    if (!capacityFits(existing.capacityBytes, request.capacityRange)) {
      problems.push(`its capacity of ${existing.capacityBytes} bytes is outside the requested capacity_range`);
    }
    if (existing.accessType !== accessType) problems.push(`it is a ${existing.accessType} volume`);
    if (!sameStringMap(existing.parameters, request.parameters)) problems.push("it was created with other parameters");
    if (problems.length > 0) {
      throw new CsiError(
        "AlreadyExists",
        `CreateVolume: a volume named ${request.name} already exists (${existing.volumeId}) but ${problems.join(" and ")}`,
      );
    }
  }

  private requireAttach(rpc: string): void {
    if (!this.options.attachRequired) {
      throw new CsiError(
        "Unimplemented",
        `${rpc}: ${this.options.driverName} runs without attach (PUBLISH_UNPUBLISH_VOLUME is not offered)`,
      );
    }
  }

  private async requireRecord(volumeId: string, rpc: string): Promise<VolumeRecord> {
    const record = await this.options.catalog.get(volumeId);
    if (record === undefined) throw new CsiError("NotFound", `${rpc}: volume ${volumeId} does not exist`);
    return record;
  }
}

/** FailedPrecondition when a capability's access type is not the volume's (CSI: "exceeds capabilities"). */
export function checkAccessType(record: VolumeRecord, accessType: string, rpc: string): void {
  if (record.accessType !== accessType) {
    throw new CsiError(
      "FailedPrecondition",
      `${rpc}: volume ${record.volumeId} is a ${record.accessType} volume and cannot be used with a ${accessType} capability`,
    );
  }
}

function sameStringMap(a: StringMap, b: StringMap): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
