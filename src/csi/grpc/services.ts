/**
 * The CSI services as transport-neutral TypeScript interfaces. A driver implements them; kubelet,
 * the attacher and the provisioner call them. The socket client, the socket server and the
 * in-process transport all speak these interfaces, so a driver runs unchanged in the simulator and
 * behind a real `csi.sock`.
 *
 * Each method is the RPC's name with a lower-case first letter (`NodeStageVolume` →
 * `nodeStageVolume`). A failure is thrown as a CsiError (errors.ts). Only the RPCs kvol uses are
 * listed; the others in csi.proto answer Unimplemented when served by kvol.
 */
import type { CsiServiceName } from "../proto/load.ts";
import type {
  ControllerExpandVolumeRequest,
  ControllerExpandVolumeResponse,
  ControllerGetCapabilitiesRequest,
  ControllerGetCapabilitiesResponse,
  ControllerPublishVolumeRequest,
  ControllerPublishVolumeResponse,
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
  GetPluginCapabilitiesRequest,
  GetPluginCapabilitiesResponse,
  GetPluginInfoRequest,
  GetPluginInfoResponse,
  ListSnapshotsRequest,
  ListSnapshotsResponse,
  ListVolumesRequest,
  ListVolumesResponse,
  NodeExpandVolumeRequest,
  NodeExpandVolumeResponse,
  NodeGetCapabilitiesRequest,
  NodeGetCapabilitiesResponse,
  NodeGetInfoRequest,
  NodeGetInfoResponse,
  NodeGetVolumeStatsRequest,
  NodeGetVolumeStatsResponse,
  NodePublishVolumeRequest,
  NodePublishVolumeResponse,
  NodeStageVolumeRequest,
  NodeStageVolumeResponse,
  NodeUnpublishVolumeRequest,
  NodeUnpublishVolumeResponse,
  NodeUnstageVolumeRequest,
  NodeUnstageVolumeResponse,
  ProbeRequest,
  ProbeResponse,
  ValidateVolumeCapabilitiesRequest,
  ValidateVolumeCapabilitiesResponse,
} from "../proto/types.ts";

export interface CsiIdentity {
  getPluginInfo(request: GetPluginInfoRequest): Promise<GetPluginInfoResponse>;
  getPluginCapabilities(request: GetPluginCapabilitiesRequest): Promise<GetPluginCapabilitiesResponse>;
  probe(request: ProbeRequest): Promise<ProbeResponse>;
}

export interface CsiController {
  createVolume(request: CreateVolumeRequest): Promise<CreateVolumeResponse>;
  deleteVolume(request: DeleteVolumeRequest): Promise<DeleteVolumeResponse>;
  controllerPublishVolume(request: ControllerPublishVolumeRequest): Promise<ControllerPublishVolumeResponse>;
  controllerUnpublishVolume(request: ControllerUnpublishVolumeRequest): Promise<ControllerUnpublishVolumeResponse>;
  validateVolumeCapabilities(request: ValidateVolumeCapabilitiesRequest): Promise<ValidateVolumeCapabilitiesResponse>;
  listVolumes(request: ListVolumesRequest): Promise<ListVolumesResponse>;
  getCapacity(request: GetCapacityRequest): Promise<GetCapacityResponse>;
  controllerGetCapabilities(request: ControllerGetCapabilitiesRequest): Promise<ControllerGetCapabilitiesResponse>;
  controllerExpandVolume(request: ControllerExpandVolumeRequest): Promise<ControllerExpandVolumeResponse>;
  createSnapshot(request: CreateSnapshotRequest): Promise<CreateSnapshotResponse>;
  deleteSnapshot(request: DeleteSnapshotRequest): Promise<DeleteSnapshotResponse>;
  listSnapshots(request: ListSnapshotsRequest): Promise<ListSnapshotsResponse>;
}

export interface CsiNode {
  nodeStageVolume(request: NodeStageVolumeRequest): Promise<NodeStageVolumeResponse>;
  nodeUnstageVolume(request: NodeUnstageVolumeRequest): Promise<NodeUnstageVolumeResponse>;
  nodePublishVolume(request: NodePublishVolumeRequest): Promise<NodePublishVolumeResponse>;
  nodeUnpublishVolume(request: NodeUnpublishVolumeRequest): Promise<NodeUnpublishVolumeResponse>;
  nodeGetVolumeStats(request: NodeGetVolumeStatsRequest): Promise<NodeGetVolumeStatsResponse>;
  nodeExpandVolume(request: NodeExpandVolumeRequest): Promise<NodeExpandVolumeResponse>;
  nodeGetCapabilities(request: NodeGetCapabilitiesRequest): Promise<NodeGetCapabilitiesResponse>;
  nodeGetInfo(request: NodeGetInfoRequest): Promise<NodeGetInfoResponse>;
}

export interface CsiServiceInterfaces {
  Identity: CsiIdentity;
  Controller: CsiController;
  Node: CsiNode;
}

/** What a caller holds: every service on one endpoint, as the spec requires of a plugin. */
export interface CsiClient extends CsiIdentity, CsiController, CsiNode {
  /** Releases the connection; later calls fail with Canceled without reaching the driver. */
  close(): void;
}

/** The implementations one endpoint serves. Identity is mandatory on every CSI endpoint. */
export interface CsiImplementations {
  identity: CsiIdentity;
  controller?: CsiController;
  node?: CsiNode;
}

export type CsiHandlerName<S extends CsiServiceName> = keyof CsiServiceInterfaces[S] & string;

/** The gRPC method name of a handler (`nodeStageVolume` → `NodeStageVolume`). */
export type CsiRpcName<S extends CsiServiceName> = Capitalize<CsiHandlerName<S>>;

/** A Record keyed by every RPC name, so a missing or misspelt RPC fails to compile. */
function rpcNamesOf<S extends CsiServiceName>(names: Record<CsiRpcName<S>, true>): readonly CsiRpcName<S>[] {
  return Object.keys(names) as CsiRpcName<S>[];
}

/** The RPCs of each service kvol speaks, in csi.proto order. */
export const csiRpcNames: { readonly [S in CsiServiceName]: readonly CsiRpcName<S>[] } = {
  Identity: rpcNamesOf<"Identity">({ GetPluginInfo: true, GetPluginCapabilities: true, Probe: true }),
  Controller: rpcNamesOf<"Controller">({
    CreateVolume: true,
    DeleteVolume: true,
    ControllerPublishVolume: true,
    ControllerUnpublishVolume: true,
    ValidateVolumeCapabilities: true,
    ListVolumes: true,
    GetCapacity: true,
    ControllerGetCapabilities: true,
    ControllerExpandVolume: true,
    CreateSnapshot: true,
    DeleteSnapshot: true,
    ListSnapshots: true,
  }),
  Node: rpcNamesOf<"Node">({
    NodeStageVolume: true,
    NodeUnstageVolume: true,
    NodePublishVolume: true,
    NodeUnpublishVolume: true,
    NodeGetVolumeStats: true,
    NodeExpandVolume: true,
    NodeGetCapabilities: true,
    NodeGetInfo: true,
  }),
};

export const csiServiceNames: readonly CsiServiceName[] = ["Identity", "Controller", "Node"];
