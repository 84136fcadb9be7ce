/**
 * mock.csi.kvol.io: a CSI driver made for tests and scenarios. It keeps volumes, publications and
 * node "mounts" in memory (mock-volumes.ts), logs every call with the virtual time it started and
 * ended, and lets the caller inject gRPC errors and delays per RPC (common/call-hooks.ts). Its capabilities
 * are configurable, so the same kubelet or sidecar code can be run against a driver with or
 * without STAGE_UNSTAGE_VOLUME, PUBLISH_UNPUBLISH_VOLUME or block volumes.
 *
 *   const mock = new MockDriver({ clock, nodeId: "node-a" });
 *   mock.hooks.set("NodeStageVolume", { code: "DeadlineExceeded", times: 1 });
 *   const client = connectCsiInProcess(mock.implementations());
 */
import type { Host } from "../../../host/host.ts";
import type { Clock } from "../../../runtime/clock.ts";
import { type CsiErrorRecord, redactSecrets } from "../../grpc/call-log.ts";
import { CsiError, toCsiError } from "../../grpc/errors.ts";
import type { CsiController, CsiIdentity, CsiNode } from "../../grpc/services.ts";
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
  EmptyMessage,
  GetCapacityRequest,
  GetCapacityResponse,
  GetPluginCapabilitiesResponse,
  GetPluginInfoResponse,
  ListSnapshotsRequest,
  ListSnapshotsResponse,
  ListVolumesRequest,
  ListVolumesResponse,
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
  ProbeResponse,
  StringMap,
  ValidateVolumeCapabilitiesRequest,
  ValidateVolumeCapabilitiesResponse,
} from "../../proto/types.ts";
import type { BundledDriver } from "../common/bundled-driver.ts";
import { type CsiCallFault, CsiCallHooks, type CsiRpcMethod } from "../common/call-hooks.ts";
import { capacityFor, capacityLimitsOf } from "../common/capacity.ts";
import { bundledDriverVersion, mockDriverName } from "../common/constants.ts";
import { checkNodeExpansionRange, expandedCapacity, volumeExpansionCapability } from "../common/expansion.ts";
import { pageOf } from "../common/list-pages.ts";
import {
  requireField,
  requireIdField,
  requireMessage,
  requirePathField,
  requirePublishStagingPath,
  requireStatsPath,
} from "../common/request-fields.ts";
import { rpcCapabilities } from "../common/rpc-capabilities.ts";
import { createTargetPath, removeTargetPath } from "../common/target-paths.ts";
import {
  allAccessModes,
  type CapabilitySupport,
  capabilityProblem,
  isReaderOnly,
  requireCapabilities,
  requireCapability,
} from "../common/volume-capabilities.ts";
import { type MockVolume, MockVolumes, type MockVolumesSnapshot } from "./mock-volumes.ts";

interface MockCapabilities {
  /** NodeStageVolume/NodeUnstageVolume (STAGE_UNSTAGE_VOLUME); default true. */
  stageUnstage?: boolean;
  /** ControllerPublish/Unpublish (PUBLISH_UNPUBLISH_VOLUME); default true. */
  publishUnpublish?: boolean;
  /** Raw block volumes; default true. */
  block?: boolean;
}

export interface MockDriverOptions {
  /** Delays of injected faults run on it, and every logged call is stamped with it. */
  clock: Clock;
  /** Default mock.csi.kvol.io (a scenario may run several mocks under other names). */
  name?: string;
  /** NodeGetInfo's node_id; default "mock-node". */
  nodeId?: string;
  capabilities?: MockCapabilities;
  /** Segments NodeGetInfo and new volumes report; none by default. */
  topology?: StringMap;
  maxVolumesPerNode?: number;
  /**
   * Whether ControllerPublishVolume may publish to `nodeId` (an unknown node is NotFound, as the
   * spec asks); by default only this instance's own node id is known. A cluster that runs one mock
   * per node lets its controller know every node's id.
   */
  isKnownNode?: (nodeId: string) => boolean;
  /**
   * The node the mock's node plugin runs on: NodePublishVolume then creates the target path (a
   * directory, or a file for a block volume) and NodeUnpublishVolume removes it, as the spec asks of
   * a plugin. Without one, node "mounts" live in memory only.
   */
  host?: Host;
  /** The volume map every instance of this driver in a cluster shares (see MockVolumes.volumes). */
  sharedVolumes?: Map<string, MockVolume>;
}

/** One finished call, as the mock saw it. */
interface MockCall {
  method: CsiRpcMethod;
  /** The request as received, secrets redacted. */
  request: unknown;
  startedAtMs: number;
  finishedAtMs: number;
  response?: unknown;
  error?: CsiErrorRecord;
}

const defaultMockNodeId = "mock-node";

export class MockDriver implements CsiIdentity, CsiController, CsiNode {
  readonly name: string;
  readonly nodeId: string;
  readonly hooks: CsiCallHooks;
  readonly state: MockVolumes;
  private readonly log: MockCall[] = [];
  private readonly support: CapabilitySupport;
  private readonly stageUnstage: boolean;
  private readonly publishUnpublish: boolean;

  constructor(private readonly options: MockDriverOptions) {
    this.name = options.name ?? mockDriverName;
    this.nodeId = options.nodeId ?? defaultMockNodeId;
    this.hooks = new CsiCallHooks(options.clock);
    this.state = new MockVolumes(options.sharedVolumes);
    this.stageUnstage = options.capabilities?.stageUnstage ?? true;
    this.publishUnpublish = options.capabilities?.publishUnpublish ?? true;
    this.support = { driverName: this.name, accessModes: allAccessModes, block: options.capabilities?.block ?? true };
  }

  /** The driver as a BundledDriver (identity, controller and node are this one object). */
  implementations(): BundledDriver {
    return {
      name: this.name,
      identity: this,
      controller: this,
      node: this,
      start: async () => undefined,
      stop: async () => undefined,
    };
  }

  /** Every finished call so far, oldest first (copies). */
  calls(method?: CsiRpcMethod): MockCall[] {
    return this.log
      .filter((call) => method === undefined || call.method === method)
      .map((call) => structuredClone(call));
  }

  /** Shorthand for `hooks.set`. */
  inject(method: CsiRpcMethod, fault: CsiCallFault): void {
    this.hooks.set(method, fault);
  }

  snapshot(): MockVolumesSnapshot {
    return this.state.snapshot();
  }

  // ---- Identity ------------------------------------------------------------------------------

  getPluginInfo(request: EmptyMessage): Promise<GetPluginInfoResponse> {
    return this.call("GetPluginInfo", request, () => ({
      name: this.name,
      vendorVersion: bundledDriverVersion,
      manifest: {},
    }));
  }

  getPluginCapabilities(request: EmptyMessage): Promise<GetPluginCapabilitiesResponse> {
    return this.call("GetPluginCapabilities", request, () => ({
      capabilities: [
        { service: { type: "CONTROLLER_SERVICE" } },
        ...(this.options.topology === undefined
          ? []
          : [{ service: { type: "VOLUME_ACCESSIBILITY_CONSTRAINTS" as const } }]),
        volumeExpansionCapability("ONLINE"),
      ],
    }));
  }

  probe(request: EmptyMessage): Promise<ProbeResponse> {
    return this.call("Probe", request, () => ({ ready: { value: true } }));
  }

  // ---- Controller ----------------------------------------------------------------------------

  createVolume(request: CreateVolumeRequest): Promise<CreateVolumeResponse> {
    return this.call("CreateVolume", request, () => {
      const rpc = "CreateVolume";
      const name = requireIdField(request.name, "name", rpc);
      const accessType = requireCapabilities(request.volumeCapabilities, "volume_capabilities", rpc, this.support);
      const capacityBytes = capacityFor(request.capacityRange, capacityLimitsOf(), rpc);
      const topology = this.options.topology === undefined ? [] : [{ segments: { ...this.options.topology } }];
      return { volume: this.state.create(name, capacityBytes, accessType, topology) };
    });
  }

  deleteVolume(request: DeleteVolumeRequest): Promise<DeleteVolumeResponse> {
    return this.call("DeleteVolume", request, () => {
      this.state.delete(requireIdField(request.volumeId, "volume_id", "DeleteVolume"));
      return {};
    });
  }

  controllerPublishVolume(request: ControllerPublishVolumeRequest): Promise<ControllerPublishVolumeResponse> {
    return this.call("ControllerPublishVolume", request, () => {
      const rpc = "ControllerPublishVolume";
      this.requireCapability(this.publishUnpublish, rpc, "PUBLISH_UNPUBLISH_VOLUME");
      const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
      const nodeId = requireIdField(request.nodeId, "node_id", rpc);
      requireCapability(request.volumeCapability, "volume_capability", rpc, this.support);
      const capability = requireMessage(request.volumeCapability, "volume_capability", rpc);
      this.state.require(volumeId, rpc);
      if (!(this.options.isKnownNode ?? ((id: string) => id === this.nodeId))(nodeId)) {
        throw new CsiError("NotFound", `${rpc}: node ${nodeId} is not known to ${this.name}`);
      }
      this.state.controllerPublish(volumeId, nodeId, capability, request.readonly);
      return { publishContext: { devicePath: `/dev/mock/${volumeId}` } };
    });
  }

  controllerUnpublishVolume(request: ControllerUnpublishVolumeRequest): Promise<ControllerUnpublishVolumeResponse> {
    return this.call("ControllerUnpublishVolume", request, () => {
      const rpc = "ControllerUnpublishVolume";
      this.requireCapability(this.publishUnpublish, rpc, "PUBLISH_UNPUBLISH_VOLUME");
      this.state.controllerUnpublish(requireIdField(request.volumeId, "volume_id", rpc), request.nodeId);
      return {};
    });
  }

  validateVolumeCapabilities(request: ValidateVolumeCapabilitiesRequest): Promise<ValidateVolumeCapabilitiesResponse> {
    return this.call("ValidateVolumeCapabilities", request, () => {
      const rpc = "ValidateVolumeCapabilities";
      const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
      if (request.volumeCapabilities.length === 0) {
        throw new CsiError("InvalidArgument", `${rpc}: volume_capabilities is required`);
      }
      this.state.require(volumeId, rpc);
      const problem = request.volumeCapabilities
        .map((capability) => capabilityProblem(capability, this.support))
        .find((found) => found !== undefined);
      if (problem !== undefined) return { confirmed: null, message: problem };
      const { volumeContext, volumeCapabilities, parameters } = request;
      return { confirmed: { volumeContext, volumeCapabilities, parameters, mutableParameters: {} }, message: "" };
    });
  }

  listVolumes(request: ListVolumesRequest): Promise<ListVolumesResponse> {
    return this.call("ListVolumes", request, () => {
      const ordered = [...this.state.volumes.values()].sort((a, b) =>
        a.volume.volumeId < b.volume.volumeId ? -1 : a.volume.volumeId > b.volume.volumeId ? 1 : 0,
      );
      const page = pageOf(ordered, request, "ListVolumes");
      return {
        entries: page.items.map((stored) => ({
          volume: stored.volume,
          status: { publishedNodeIds: [...stored.publishedTo.keys()], volumeCondition: null },
        })),
        nextToken: page.nextToken,
      };
    });
  }

  controllerGetCapabilities(request: EmptyMessage): Promise<ControllerGetCapabilitiesResponse> {
    return this.call("ControllerGetCapabilities", request, () => {
      const types: ControllerRpcType[] = ["CREATE_DELETE_VOLUME", "LIST_VOLUMES", "EXPAND_VOLUME"];
      if (this.publishUnpublish) types.push("PUBLISH_UNPUBLISH_VOLUME");
      return rpcCapabilities(types);
    });
  }

  /** GET_CAPACITY is not offered: the call answers Unimplemented, as a driver without it does. */
  getCapacity(request: GetCapacityRequest): Promise<GetCapacityResponse> {
    return this.call("GetCapacity", request, () => {
      throw new CsiError("Unimplemented", "GetCapacity: mock.csi.kvol.io does not report capacity");
    });
  }

  controllerExpandVolume(request: ControllerExpandVolumeRequest): Promise<ControllerExpandVolumeResponse> {
    return this.call("ControllerExpandVolume", request, () => {
      const rpc = "ControllerExpandVolume";
      const stored = this.state.require(requireIdField(request.volumeId, "volume_id", rpc), rpc);
      const range = requireMessage(request.capacityRange, "capacity_range", rpc);
      stored.volume.capacityBytes = expandedCapacity(range, stored.volume.capacityBytes, capacityLimitsOf(), rpc);
      return { capacityBytes: stored.volume.capacityBytes, nodeExpansionRequired: stored.accessType === "mount" };
    });
  }

  // The mock offers no snapshots (it advertises neither CREATE_DELETE_SNAPSHOT nor LIST_SNAPSHOTS).
  createSnapshot(request: CreateSnapshotRequest): Promise<CreateSnapshotResponse> {
    return this.call("CreateSnapshot", request, () => {
      throw new CsiError("Unimplemented", "CreateSnapshot: mock.csi.kvol.io does not take snapshots");
    });
  }

  deleteSnapshot(request: DeleteSnapshotRequest): Promise<DeleteSnapshotResponse> {
    return this.call("DeleteSnapshot", request, () => {
      throw new CsiError("Unimplemented", "DeleteSnapshot: mock.csi.kvol.io does not take snapshots");
    });
  }

  listSnapshots(request: ListSnapshotsRequest): Promise<ListSnapshotsResponse> {
    return this.call("ListSnapshots", request, () => {
      throw new CsiError("Unimplemented", "ListSnapshots: mock.csi.kvol.io does not take snapshots");
    });
  }

  // ---- Node ----------------------------------------------------------------------------------

  nodeStageVolume(request: NodeStageVolumeRequest): Promise<NodeStageVolumeResponse> {
    return this.call("NodeStageVolume", request, () => {
      const rpc = "NodeStageVolume";
      this.requireCapability(this.stageUnstage, rpc, "STAGE_UNSTAGE_VOLUME");
      const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
      const stagingPath = requirePathField(request.stagingTargetPath, "staging_target_path", rpc);
      requireCapability(request.volumeCapability, "volume_capability", rpc, this.support);
      this.state.require(volumeId, rpc);
      this.state.stage(volumeId, stagingPath);
      return {};
    });
  }

  nodeUnstageVolume(request: NodeUnstageVolumeRequest): Promise<NodeUnstageVolumeResponse> {
    return this.call("NodeUnstageVolume", request, () => {
      const rpc = "NodeUnstageVolume";
      this.requireCapability(this.stageUnstage, rpc, "STAGE_UNSTAGE_VOLUME");
      requireIdField(request.volumeId, "volume_id", rpc);
      this.state.staged.delete(requirePathField(request.stagingTargetPath, "staging_target_path", rpc));
      return {};
    });
  }

  nodePublishVolume(request: NodePublishVolumeRequest): Promise<NodePublishVolumeResponse> {
    return this.call("NodePublishVolume", request, async () => {
      const rpc = "NodePublishVolume";
      const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
      const targetPath = requirePathField(request.targetPath, "target_path", rpc);
      requireCapability(request.volumeCapability, "volume_capability", rpc, this.support);
      this.state.require(volumeId, rpc);
      if (this.stageUnstage) this.requireStaged(volumeId, request.stagingTargetPath, rpc);
      this.state.publish(volumeId, targetPath, request.readonly || isReaderOnly(request.volumeCapability));
      if (this.options.host !== undefined) {
        const kind = request.volumeCapability?.block === undefined ? "directory" : "file";
        await createTargetPath(this.options.host, targetPath, kind, rpc);
      }
      return {};
    });
  }

  nodeUnpublishVolume(request: NodeUnpublishVolumeRequest): Promise<NodeUnpublishVolumeResponse> {
    return this.call("NodeUnpublishVolume", request, async () => {
      const rpc = "NodeUnpublishVolume";
      requireIdField(request.volumeId, "volume_id", rpc);
      const targetPath = requirePathField(request.targetPath, "target_path", rpc);
      this.state.published.delete(targetPath);
      if (this.options.host !== undefined) await removeTargetPath(this.options.host, targetPath, rpc);
      return {};
    });
  }

  nodeGetVolumeStats(request: NodeGetVolumeStatsRequest): Promise<NodeGetVolumeStatsResponse> {
    return this.call("NodeGetVolumeStats", request, () => {
      const rpc = "NodeGetVolumeStats";
      const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
      requireField(request.volumePath, "volume_path", rpc);
      const total = this.state.require(volumeId, rpc).volume.capacityBytes;
      const volumePath = requireStatsPath(request.volumePath, volumeId, rpc);
      const at = this.state.published.get(volumePath)?.volumeId ?? this.state.staged.get(volumePath);
      if (at !== volumeId) {
        throw new CsiError("NotFound", `${rpc}: volume ${volumeId} is not present at volume_path ${volumePath}`);
      }
      return {
        usage: [{ total, used: 0, available: total, unit: "BYTES" }],
        volumeCondition: { abnormal: false, message: "" },
      };
    });
  }

  nodeExpandVolume(request: NodeExpandVolumeRequest): Promise<NodeExpandVolumeResponse> {
    return this.call("NodeExpandVolume", request, () => {
      const rpc = "NodeExpandVolume";
      const volumeId = requireIdField(request.volumeId, "volume_id", rpc);
      requireField(request.volumePath, "volume_path", rpc);
      const stored = this.state.require(volumeId, rpc);
      const volumePath = requireStatsPath(request.volumePath, volumeId, rpc);
      const at = this.state.published.get(volumePath)?.volumeId ?? this.state.staged.get(volumePath);
      if (at !== volumeId) {
        throw new CsiError("NotFound", `${rpc}: volume ${volumeId} is not present at volume_path ${volumePath}`);
      }
      checkNodeExpansionRange(request.capacityRange, stored.volume.capacityBytes, volumeId, rpc);
      return { capacityBytes: stored.volume.capacityBytes };
    });
  }

  nodeGetCapabilities(request: EmptyMessage): Promise<NodeGetCapabilitiesResponse> {
    return this.call("NodeGetCapabilities", request, () => {
      const types: NodeRpcType[] = ["GET_VOLUME_STATS", "EXPAND_VOLUME"];
      if (this.stageUnstage) types.unshift("STAGE_UNSTAGE_VOLUME");
      return rpcCapabilities(types);
    });
  }

  nodeGetInfo(request: EmptyMessage): Promise<NodeGetInfoResponse> {
    return this.call("NodeGetInfo", request, () => ({
      nodeId: this.nodeId,
      maxVolumesPerNode: this.options.maxVolumesPerNode ?? 0,
      accessibleTopology: this.options.topology === undefined ? null : { segments: { ...this.options.topology } },
    }));
  }

  // ---- Plumbing ------------------------------------------------------------------------------

  /** Logs the call around the injected fault and the handler. */
  private async call<Response>(
    method: CsiRpcMethod,
    request: unknown,
    handler: () => Response | Promise<Response>,
  ): Promise<Response> {
    const startedAtMs = this.options.clock.now();
    const logged = structuredClone(redactSecrets(request));
    try {
      await this.hooks.apply(method, request);
      const response = await handler();
      this.log.push({
        method,
        request: logged,
        startedAtMs,
        finishedAtMs: this.options.clock.now(),
        response: structuredClone(response),
      });
      return response;
    } catch (error) {
      const failure = toCsiError(error);
      const record = { code: failure.code, message: failure.statusMessage };
      this.log.push({ method, request: logged, startedAtMs, finishedAtMs: this.options.clock.now(), error: record });
      throw failure;
    }
  }

  private requireCapability(offered: boolean, rpc: string, capability: string): void {
    if (!offered) throw new CsiError("Unimplemented", `${rpc}: ${this.name} is configured without ${capability}`);
  }

  private requireStaged(volumeId: string, stagingPath: string, rpc: string): void {
    requirePublishStagingPath(stagingPath, rpc);
    if (this.state.staged.get(stagingPath) !== volumeId) {
      throw new CsiError("FailedPrecondition", `${rpc}: volume ${volumeId} is not staged at ${stagingPath}`);
    }
  }
}
