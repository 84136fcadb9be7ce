/**
 * TypeScript shapes of the CSI messages kvol sends and receives, mirroring `csi.proto` field for
 * field. They describe a message exactly as `load.ts` decodes it (see `csiLoaderOptions`):
 *
 * - field names are camelCase (`staging_target_path` → `stagingTargetPath`);
 * - every scalar, repeated and map field is always present, holding its proto3 default (`""`, `0`,
 *   `false`, `[]`, `{}`) when it was not on the wire, because proto3 cannot tell the two apart;
 * - a singular message field is `null` when absent (messages, unlike scalars, have presence);
 * - a oneof arm is present only when it is the chosen one;
 * - int64 values are JavaScript numbers (exact up to 2^53 bytes = 8 PiB);
 * - enum values are their names, or the bare number when a newer peer sends a value this proto
 *   does not know (protobufjs passes unknown numbers through).
 *
 * Both transports hand every message through the same encoder and decoder, so what a driver or a
 * caller receives always has this shape, whatever the sender built.
 */

/** Keys and values of every `map<string, string>` field. */
export type StringMap = Record<string, string>;

/** A message without fields (it encodes as zero bytes). */
export type EmptyMessage = Record<string, never>;

/** An enum field: its value name, or the number when the name is unknown to this proto. */
export type EnumValue<Name extends string> = Name | number;

/** google.protobuf.BoolValue: a bool whose absence is visible. */
interface BoolValue {
  value: boolean;
}

// ---------------------------------------------------------------------------------------------
// Identity
// ---------------------------------------------------------------------------------------------

export type GetPluginInfoRequest = EmptyMessage;

export interface GetPluginInfoResponse {
  name: string;
  vendorVersion: string;
  manifest: StringMap;
}

export type GetPluginCapabilitiesRequest = EmptyMessage;

export type PluginServiceType =
  | "UNKNOWN"
  | "CONTROLLER_SERVICE"
  | "VOLUME_ACCESSIBILITY_CONSTRAINTS"
  | "GROUP_CONTROLLER_SERVICE"
  | "SNAPSHOT_METADATA_SERVICE";

type VolumeExpansionType = "UNKNOWN" | "ONLINE" | "OFFLINE";

/** oneof `type`: exactly one of `service` / `volumeExpansion`. */
export interface PluginCapability {
  service?: { type: EnumValue<PluginServiceType> };
  volumeExpansion?: { type: EnumValue<VolumeExpansionType> };
}

export interface GetPluginCapabilitiesResponse {
  capabilities: PluginCapability[];
}

export type ProbeRequest = EmptyMessage;

export interface ProbeResponse {
  /** null = ready; `{ value: false }` = healthy but still initialising. */
  ready: BoolValue | null;
}

// ---------------------------------------------------------------------------------------------
// Shared building blocks
// ---------------------------------------------------------------------------------------------

export type AccessModeName =
  | "UNKNOWN"
  | "SINGLE_NODE_WRITER"
  | "SINGLE_NODE_READER_ONLY"
  | "MULTI_NODE_READER_ONLY"
  | "MULTI_NODE_SINGLE_WRITER"
  | "MULTI_NODE_MULTI_WRITER"
  | "SINGLE_NODE_SINGLE_WRITER"
  | "SINGLE_NODE_MULTI_WRITER";

type BlockVolume = EmptyMessage;

interface MountVolume {
  fsType: string;
  mountFlags: string[];
  /** The pod's fsGroup as a decimal string; honoured with the VOLUME_MOUNT_GROUP node capability. */
  volumeMountGroup: string;
}

interface AccessMode {
  mode: EnumValue<AccessModeName>;
}

/** oneof `access_type`: exactly one of `block` / `mount` must be set. */
export interface VolumeCapability {
  block?: BlockVolume;
  mount?: MountVolume;
  accessMode: AccessMode | null;
}

export interface CapacityRange {
  requiredBytes: number;
  limitBytes: number;
}

export interface Topology {
  segments: StringMap;
}

export interface TopologyRequirement {
  requisite: Topology[];
  preferred: Topology[];
}

/** oneof `type`: exactly one of `snapshot` / `volume` must be set. */
interface VolumeContentSource {
  snapshot?: { snapshotId: string };
  volume?: { volumeId: string };
}

export interface Volume {
  capacityBytes: number;
  volumeId: string;
  volumeContext: StringMap;
  contentSource: VolumeContentSource | null;
  accessibleTopology: Topology[];
}

interface VolumeCondition {
  abnormal: boolean;
  message: string;
}

type VolumeUsageUnit = "UNKNOWN" | "BYTES" | "INODES";

interface VolumeUsage {
  available: number;
  total: number;
  used: number;
  unit: EnumValue<VolumeUsageUnit>;
}

// ---------------------------------------------------------------------------------------------
// Controller
// ---------------------------------------------------------------------------------------------

export interface CreateVolumeRequest {
  name: string;
  capacityRange: CapacityRange | null;
  volumeCapabilities: VolumeCapability[];
  parameters: StringMap;
  secrets: StringMap;
  volumeContentSource: VolumeContentSource | null;
  accessibilityRequirements: TopologyRequirement | null;
  mutableParameters: StringMap;
}

export interface CreateVolumeResponse {
  volume: Volume | null;
}

export interface DeleteVolumeRequest {
  volumeId: string;
  secrets: StringMap;
}

export type DeleteVolumeResponse = EmptyMessage;

export interface ControllerPublishVolumeRequest {
  volumeId: string;
  nodeId: string;
  volumeCapability: VolumeCapability | null;
  readonly: boolean;
  secrets: StringMap;
  volumeContext: StringMap;
}

export interface ControllerPublishVolumeResponse {
  publishContext: StringMap;
}

export interface ControllerUnpublishVolumeRequest {
  volumeId: string;
  /** Empty = detach from every node. */
  nodeId: string;
  secrets: StringMap;
}

export type ControllerUnpublishVolumeResponse = EmptyMessage;

export interface ValidateVolumeCapabilitiesRequest {
  volumeId: string;
  volumeContext: StringMap;
  volumeCapabilities: VolumeCapability[];
  parameters: StringMap;
  secrets: StringMap;
  mutableParameters: StringMap;
}

interface ValidateVolumeCapabilitiesConfirmed {
  volumeContext: StringMap;
  volumeCapabilities: VolumeCapability[];
  parameters: StringMap;
  mutableParameters: StringMap;
}

export interface ValidateVolumeCapabilitiesResponse {
  /** Set only when every requested capability is supported. */
  confirmed: ValidateVolumeCapabilitiesConfirmed | null;
  message: string;
}

export interface ListVolumesRequest {
  /** 0 = no limit. */
  maxEntries: number;
  startingToken: string;
}

interface ListVolumesVolumeStatus {
  publishedNodeIds: string[];
  volumeCondition: VolumeCondition | null;
}

interface ListVolumesEntry {
  volume: Volume | null;
  status: ListVolumesVolumeStatus | null;
}

export interface ListVolumesResponse {
  entries: ListVolumesEntry[];
  /** Non-empty when more pages exist. */
  nextToken: string;
}

/** google.protobuf.Timestamp, its int64 seconds read as a number (load.ts `longs: Number`). */
export interface Timestamp {
  seconds: number;
  nanos: number;
}

export interface Snapshot {
  /** 0 = unknown. */
  sizeBytes: number;
  snapshotId: string;
  sourceVolumeId: string;
  creationTime: Timestamp | null;
  readyToUse: boolean;
  groupSnapshotId: string;
}

export interface CreateSnapshotRequest {
  sourceVolumeId: string;
  /** The idempotency key. */
  name: string;
  secrets: StringMap;
  parameters: StringMap;
}

export interface CreateSnapshotResponse {
  snapshot: Snapshot | null;
}

export interface DeleteSnapshotRequest {
  snapshotId: string;
  secrets: StringMap;
}

export type DeleteSnapshotResponse = EmptyMessage;

export interface ListSnapshotsRequest {
  /** 0 = no limit. */
  maxEntries: number;
  startingToken: string;
  sourceVolumeId: string;
  snapshotId: string;
  secrets: StringMap;
}

export interface ListSnapshotsResponse {
  entries: { snapshot: Snapshot | null }[];
  nextToken: string;
}

export interface GetCapacityRequest {
  volumeCapabilities: VolumeCapability[];
  parameters: StringMap;
  /** Null = the capacity of the whole storage system. */
  accessibleTopology: Topology | null;
}

export interface GetCapacityResponse {
  availableCapacity: number;
  /** google.protobuf.Int64Value: null when the driver does not say. */
  maximumVolumeSize: { value: number } | null;
}

export type ControllerGetCapabilitiesRequest = EmptyMessage;

export type ControllerRpcType =
  | "UNKNOWN"
  | "CREATE_DELETE_VOLUME"
  | "PUBLISH_UNPUBLISH_VOLUME"
  | "LIST_VOLUMES"
  | "GET_CAPACITY"
  | "CREATE_DELETE_SNAPSHOT"
  | "LIST_SNAPSHOTS"
  | "CLONE_VOLUME"
  | "PUBLISH_READONLY"
  | "EXPAND_VOLUME"
  | "LIST_VOLUMES_PUBLISHED_NODES"
  | "VOLUME_CONDITION"
  | "GET_VOLUME"
  | "SINGLE_NODE_MULTI_WRITER"
  | "MODIFY_VOLUME"
  | "GET_SNAPSHOT";

/** oneof `type`: `rpc` is its only arm. */
interface ControllerServiceCapability {
  rpc?: { type: EnumValue<ControllerRpcType> };
}

export interface ControllerGetCapabilitiesResponse {
  capabilities: ControllerServiceCapability[];
}

export interface ControllerExpandVolumeRequest {
  volumeId: string;
  capacityRange: CapacityRange | null;
  secrets: StringMap;
  volumeCapability: VolumeCapability | null;
}

export interface ControllerExpandVolumeResponse {
  capacityBytes: number;
  /** True = the CO follows with NodeExpandVolume. */
  nodeExpansionRequired: boolean;
}

// ---------------------------------------------------------------------------------------------
// Node
// ---------------------------------------------------------------------------------------------

export interface NodeStageVolumeRequest {
  volumeId: string;
  publishContext: StringMap;
  stagingTargetPath: string;
  volumeCapability: VolumeCapability | null;
  secrets: StringMap;
  volumeContext: StringMap;
}

export type NodeStageVolumeResponse = EmptyMessage;

export interface NodeUnstageVolumeRequest {
  volumeId: string;
  stagingTargetPath: string;
}

export type NodeUnstageVolumeResponse = EmptyMessage;

export interface NodePublishVolumeRequest {
  volumeId: string;
  publishContext: StringMap;
  /** Must be set when the node has STAGE_UNSTAGE_VOLUME. */
  stagingTargetPath: string;
  targetPath: string;
  volumeCapability: VolumeCapability | null;
  readonly: boolean;
  secrets: StringMap;
  volumeContext: StringMap;
}

export type NodePublishVolumeResponse = EmptyMessage;

export interface NodeUnpublishVolumeRequest {
  volumeId: string;
  targetPath: string;
}

export type NodeUnpublishVolumeResponse = EmptyMessage;

export interface NodeGetVolumeStatsRequest {
  volumeId: string;
  volumePath: string;
  stagingTargetPath: string;
}

export interface NodeGetVolumeStatsResponse {
  usage: VolumeUsage[];
  volumeCondition: VolumeCondition | null;
}

export interface NodeExpandVolumeRequest {
  volumeId: string;
  volumePath: string;
  capacityRange: CapacityRange | null;
  stagingTargetPath: string;
  volumeCapability: VolumeCapability | null;
  secrets: StringMap;
}

export interface NodeExpandVolumeResponse {
  capacityBytes: number;
}

export type NodeGetCapabilitiesRequest = EmptyMessage;

export type NodeRpcType =
  | "UNKNOWN"
  | "STAGE_UNSTAGE_VOLUME"
  | "GET_VOLUME_STATS"
  | "EXPAND_VOLUME"
  | "VOLUME_CONDITION"
  | "SINGLE_NODE_MULTI_WRITER"
  | "VOLUME_MOUNT_GROUP";

/** oneof `type`: `rpc` is its only arm. */
interface NodeServiceCapability {
  rpc?: { type: EnumValue<NodeRpcType> };
}

export interface NodeGetCapabilitiesResponse {
  capabilities: NodeServiceCapability[];
}

export type NodeGetInfoRequest = EmptyMessage;

export interface NodeGetInfoResponse {
  nodeId: string;
  /** 0 = the CO decides. */
  maxVolumesPerNode: number;
  /** A single Topology, not a list. */
  accessibleTopology: Topology | null;
}
