/**
 * The CSI v1.12.0 wire tables from shared/spec/csi-wire.md (§1 services, §2 and appendix A
 * messages and enums), transcribed as data so csi-proto.test.ts can hold csi.proto to them.
 * Names are the proto's snake_case names; types are spelled as in the spec.
 */

interface SpecRpc {
  /** The HTTP/2 `:path`. */
  path: string;
  request: string;
  response: string;
  serverStreaming: boolean;
  /** Marked `alpha_method` upstream. */
  alpha: boolean;
}

type SpecFieldFlag = "secret" | "alpha";

export interface SpecField {
  number: number;
  name: string;
  /** `string`, `int64`, `repeated X`, `map<string,string>`, `enum X.Y`, a message name. */
  type: string;
  /** The oneof group the field belongs to. */
  oneof?: string;
  /** `secret` = `[(csi_secret) = true]`, `alpha` = `[(alpha_field) = true]`. */
  flags?: readonly SpecFieldFlag[];
}

interface SpecMessage {
  /** Dotted path inside package csi.v1, e.g. `VolumeCapability.MountVolume`. */
  name: string;
  fields: readonly SpecField[];
}

interface SpecEnum {
  name: string;
  values: readonly { name: string; number: number }[];
}

export const specRpcs: readonly SpecRpc[] = [
  {
    path: "/csi.v1.Identity/GetPluginInfo",
    request: "GetPluginInfoRequest",
    response: "GetPluginInfoResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Identity/GetPluginCapabilities",
    request: "GetPluginCapabilitiesRequest",
    response: "GetPluginCapabilitiesResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Identity/Probe",
    request: "ProbeRequest",
    response: "ProbeResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Controller/CreateVolume",
    request: "CreateVolumeRequest",
    response: "CreateVolumeResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Controller/DeleteVolume",
    request: "DeleteVolumeRequest",
    response: "DeleteVolumeResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Controller/ControllerPublishVolume",
    request: "ControllerPublishVolumeRequest",
    response: "ControllerPublishVolumeResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Controller/ControllerUnpublishVolume",
    request: "ControllerUnpublishVolumeRequest",
    response: "ControllerUnpublishVolumeResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Controller/ValidateVolumeCapabilities",
    request: "ValidateVolumeCapabilitiesRequest",
    response: "ValidateVolumeCapabilitiesResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Controller/ListVolumes",
    request: "ListVolumesRequest",
    response: "ListVolumesResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Controller/GetCapacity",
    request: "GetCapacityRequest",
    response: "GetCapacityResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Controller/ControllerGetCapabilities",
    request: "ControllerGetCapabilitiesRequest",
    response: "ControllerGetCapabilitiesResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Controller/CreateSnapshot",
    request: "CreateSnapshotRequest",
    response: "CreateSnapshotResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Controller/DeleteSnapshot",
    request: "DeleteSnapshotRequest",
    response: "DeleteSnapshotResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Controller/ListSnapshots",
    request: "ListSnapshotsRequest",
    response: "ListSnapshotsResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Controller/GetSnapshot",
    request: "GetSnapshotRequest",
    response: "GetSnapshotResponse",
    serverStreaming: false,
    alpha: true,
  },
  {
    path: "/csi.v1.Controller/ControllerExpandVolume",
    request: "ControllerExpandVolumeRequest",
    response: "ControllerExpandVolumeResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Controller/ControllerGetVolume",
    request: "ControllerGetVolumeRequest",
    response: "ControllerGetVolumeResponse",
    serverStreaming: false,
    alpha: true,
  },
  {
    path: "/csi.v1.Controller/ControllerModifyVolume",
    request: "ControllerModifyVolumeRequest",
    response: "ControllerModifyVolumeResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Node/NodeStageVolume",
    request: "NodeStageVolumeRequest",
    response: "NodeStageVolumeResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Node/NodeUnstageVolume",
    request: "NodeUnstageVolumeRequest",
    response: "NodeUnstageVolumeResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Node/NodePublishVolume",
    request: "NodePublishVolumeRequest",
    response: "NodePublishVolumeResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Node/NodeUnpublishVolume",
    request: "NodeUnpublishVolumeRequest",
    response: "NodeUnpublishVolumeResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Node/NodeGetVolumeStats",
    request: "NodeGetVolumeStatsRequest",
    response: "NodeGetVolumeStatsResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Node/NodeExpandVolume",
    request: "NodeExpandVolumeRequest",
    response: "NodeExpandVolumeResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Node/NodeGetCapabilities",
    request: "NodeGetCapabilitiesRequest",
    response: "NodeGetCapabilitiesResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.Node/NodeGetInfo",
    request: "NodeGetInfoRequest",
    response: "NodeGetInfoResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.GroupController/GroupControllerGetCapabilities",
    request: "GroupControllerGetCapabilitiesRequest",
    response: "GroupControllerGetCapabilitiesResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.GroupController/CreateVolumeGroupSnapshot",
    request: "CreateVolumeGroupSnapshotRequest",
    response: "CreateVolumeGroupSnapshotResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.GroupController/DeleteVolumeGroupSnapshot",
    request: "DeleteVolumeGroupSnapshotRequest",
    response: "DeleteVolumeGroupSnapshotResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.GroupController/GetVolumeGroupSnapshot",
    request: "GetVolumeGroupSnapshotRequest",
    response: "GetVolumeGroupSnapshotResponse",
    serverStreaming: false,
    alpha: false,
  },
  {
    path: "/csi.v1.SnapshotMetadata/GetMetadataAllocated",
    request: "GetMetadataAllocatedRequest",
    response: "GetMetadataAllocatedResponse",
    serverStreaming: true,
    alpha: false,
  },
  {
    path: "/csi.v1.SnapshotMetadata/GetMetadataDelta",
    request: "GetMetadataDeltaRequest",
    response: "GetMetadataDeltaResponse",
    serverStreaming: true,
    alpha: false,
  },
];

export const specFieldlessMessages: readonly string[] = [
  "GetPluginInfoRequest",
  "GetPluginCapabilitiesRequest",
  "ProbeRequest",
  "DeleteVolumeResponse",
  "ControllerUnpublishVolumeResponse",
  "ControllerModifyVolumeResponse",
  "ControllerGetCapabilitiesRequest",
  "DeleteSnapshotResponse",
  "NodeStageVolumeResponse",
  "NodeUnstageVolumeResponse",
  "NodePublishVolumeResponse",
  "NodeUnpublishVolumeResponse",
  "NodeGetCapabilitiesRequest",
  "NodeGetInfoRequest",
  "GroupControllerGetCapabilitiesRequest",
  "DeleteVolumeGroupSnapshotResponse",
];

export const specAlphaMessages: readonly string[] = [
  "VolumeCondition",
  "ControllerGetVolumeRequest",
  "ControllerGetVolumeResponse",
  "GetSnapshotRequest",
  "GetSnapshotResponse",
];

export const specMessages: readonly SpecMessage[] = [
  {
    name: "GetPluginInfoResponse",
    fields: [
      { number: 1, name: "name", type: "string" },
      { number: 2, name: "vendor_version", type: "string" },
      { number: 3, name: "manifest", type: "map<string,string>" },
    ],
  },
  {
    name: "GetPluginCapabilitiesResponse",
    fields: [{ number: 1, name: "capabilities", type: "repeated PluginCapability" }],
  },
  {
    name: "PluginCapability",
    fields: [
      { number: 1, name: "service", type: "PluginCapability.Service", oneof: "type" },
      { number: 2, name: "volume_expansion", type: "PluginCapability.VolumeExpansion", oneof: "type" },
    ],
  },
  {
    name: "PluginCapability.Service",
    fields: [{ number: 1, name: "type", type: "enum PluginCapability.Service.Type" }],
  },
  {
    name: "PluginCapability.VolumeExpansion",
    fields: [{ number: 1, name: "type", type: "enum PluginCapability.VolumeExpansion.Type" }],
  },
  {
    name: "ProbeResponse",
    fields: [{ number: 1, name: "ready", type: "google.protobuf.BoolValue" }],
  },
  {
    name: "VolumeCapability",
    fields: [
      { number: 1, name: "block", type: "VolumeCapability.BlockVolume", oneof: "access_type" },
      { number: 2, name: "mount", type: "VolumeCapability.MountVolume", oneof: "access_type" },
      { number: 3, name: "access_mode", type: "VolumeCapability.AccessMode" },
    ],
  },
  { name: "VolumeCapability.BlockVolume", fields: [] },
  {
    name: "VolumeCapability.MountVolume",
    fields: [
      { number: 1, name: "fs_type", type: "string" },
      { number: 2, name: "mount_flags", type: "repeated string" },
      { number: 3, name: "volume_mount_group", type: "string" },
    ],
  },
  {
    name: "VolumeCapability.AccessMode",
    fields: [{ number: 1, name: "mode", type: "enum VolumeCapability.AccessMode.Mode" }],
  },
  {
    name: "CapacityRange",
    fields: [
      { number: 1, name: "required_bytes", type: "int64" },
      { number: 2, name: "limit_bytes", type: "int64" },
    ],
  },
  {
    name: "Volume",
    fields: [
      { number: 1, name: "capacity_bytes", type: "int64" },
      { number: 2, name: "volume_id", type: "string" },
      { number: 3, name: "volume_context", type: "map<string,string>" },
      { number: 4, name: "content_source", type: "VolumeContentSource" },
      { number: 5, name: "accessible_topology", type: "repeated Topology" },
    ],
  },
  {
    name: "VolumeContentSource",
    fields: [
      { number: 1, name: "snapshot", type: "VolumeContentSource.SnapshotSource", oneof: "type" },
      { number: 2, name: "volume", type: "VolumeContentSource.VolumeSource", oneof: "type" },
    ],
  },
  {
    name: "VolumeContentSource.SnapshotSource",
    fields: [{ number: 1, name: "snapshot_id", type: "string" }],
  },
  {
    name: "VolumeContentSource.VolumeSource",
    fields: [{ number: 1, name: "volume_id", type: "string" }],
  },
  {
    name: "Topology",
    fields: [{ number: 1, name: "segments", type: "map<string,string>" }],
  },
  {
    name: "TopologyRequirement",
    fields: [
      { number: 1, name: "requisite", type: "repeated Topology" },
      { number: 2, name: "preferred", type: "repeated Topology" },
    ],
  },
  {
    name: "Snapshot",
    fields: [
      { number: 1, name: "size_bytes", type: "int64" },
      { number: 2, name: "snapshot_id", type: "string" },
      { number: 3, name: "source_volume_id", type: "string" },
      { number: 4, name: "creation_time", type: "google.protobuf.Timestamp" },
      { number: 5, name: "ready_to_use", type: "bool" },
      { number: 6, name: "group_snapshot_id", type: "string" },
    ],
  },
  {
    name: "VolumeCondition",
    fields: [
      { number: 1, name: "abnormal", type: "bool" },
      { number: 2, name: "message", type: "string" },
    ],
  },
  {
    name: "VolumeUsage",
    fields: [
      { number: 1, name: "available", type: "int64" },
      { number: 2, name: "total", type: "int64" },
      { number: 3, name: "used", type: "int64" },
      { number: 4, name: "unit", type: "enum VolumeUsage.Unit" },
    ],
  },
  {
    name: "CreateVolumeRequest",
    fields: [
      { number: 1, name: "name", type: "string" },
      { number: 2, name: "capacity_range", type: "CapacityRange" },
      { number: 3, name: "volume_capabilities", type: "repeated VolumeCapability" },
      { number: 4, name: "parameters", type: "map<string,string>" },
      { number: 5, name: "secrets", type: "map<string,string>", flags: ["secret"] },
      { number: 6, name: "volume_content_source", type: "VolumeContentSource" },
      { number: 7, name: "accessibility_requirements", type: "TopologyRequirement" },
      { number: 8, name: "mutable_parameters", type: "map<string,string>" },
    ],
  },
  {
    name: "CreateVolumeResponse",
    fields: [{ number: 1, name: "volume", type: "Volume" }],
  },
  {
    name: "DeleteVolumeRequest",
    fields: [
      { number: 1, name: "volume_id", type: "string" },
      { number: 2, name: "secrets", type: "map<string,string>", flags: ["secret"] },
    ],
  },
  {
    name: "ControllerPublishVolumeRequest",
    fields: [
      { number: 1, name: "volume_id", type: "string" },
      { number: 2, name: "node_id", type: "string" },
      { number: 3, name: "volume_capability", type: "VolumeCapability" },
      { number: 4, name: "readonly", type: "bool" },
      { number: 5, name: "secrets", type: "map<string,string>", flags: ["secret"] },
      { number: 6, name: "volume_context", type: "map<string,string>" },
    ],
  },
  {
    name: "ControllerPublishVolumeResponse",
    fields: [{ number: 1, name: "publish_context", type: "map<string,string>" }],
  },
  {
    name: "ControllerUnpublishVolumeRequest",
    fields: [
      { number: 1, name: "volume_id", type: "string" },
      { number: 2, name: "node_id", type: "string" },
      { number: 3, name: "secrets", type: "map<string,string>", flags: ["secret"] },
    ],
  },
  {
    name: "ValidateVolumeCapabilitiesRequest",
    fields: [
      { number: 1, name: "volume_id", type: "string" },
      { number: 2, name: "volume_context", type: "map<string,string>" },
      { number: 3, name: "volume_capabilities", type: "repeated VolumeCapability" },
      { number: 4, name: "parameters", type: "map<string,string>" },
      { number: 5, name: "secrets", type: "map<string,string>", flags: ["secret"] },
      { number: 6, name: "mutable_parameters", type: "map<string,string>" },
    ],
  },
  {
    name: "ValidateVolumeCapabilitiesResponse",
    fields: [
      { number: 1, name: "confirmed", type: "ValidateVolumeCapabilitiesResponse.Confirmed" },
      { number: 2, name: "message", type: "string" },
    ],
  },
  {
    name: "ValidateVolumeCapabilitiesResponse.Confirmed",
    fields: [
      { number: 1, name: "volume_context", type: "map<string,string>" },
      { number: 2, name: "volume_capabilities", type: "repeated VolumeCapability" },
      { number: 3, name: "parameters", type: "map<string,string>" },
      { number: 4, name: "mutable_parameters", type: "map<string,string>" },
    ],
  },
  {
    name: "ListVolumesRequest",
    fields: [
      { number: 1, name: "max_entries", type: "int32" },
      { number: 2, name: "starting_token", type: "string" },
    ],
  },
  {
    name: "ListVolumesResponse",
    fields: [
      { number: 1, name: "entries", type: "repeated ListVolumesResponse.Entry" },
      { number: 2, name: "next_token", type: "string" },
    ],
  },
  {
    name: "ListVolumesResponse.Entry",
    fields: [
      { number: 1, name: "volume", type: "Volume" },
      { number: 2, name: "status", type: "ListVolumesResponse.VolumeStatus" },
    ],
  },
  {
    name: "ListVolumesResponse.VolumeStatus",
    fields: [
      { number: 1, name: "published_node_ids", type: "repeated string" },
      { number: 2, name: "volume_condition", type: "VolumeCondition", flags: ["alpha"] },
    ],
  },
  {
    name: "ControllerGetVolumeRequest",
    fields: [{ number: 1, name: "volume_id", type: "string" }],
  },
  {
    name: "ControllerGetVolumeResponse",
    fields: [
      { number: 1, name: "volume", type: "Volume" },
      { number: 2, name: "status", type: "ControllerGetVolumeResponse.VolumeStatus" },
    ],
  },
  {
    name: "ControllerGetVolumeResponse.VolumeStatus",
    fields: [
      { number: 1, name: "published_node_ids", type: "repeated string" },
      { number: 2, name: "volume_condition", type: "VolumeCondition" },
    ],
  },
  {
    name: "ControllerModifyVolumeRequest",
    fields: [
      { number: 1, name: "volume_id", type: "string" },
      { number: 2, name: "secrets", type: "map<string,string>", flags: ["secret"] },
      { number: 3, name: "mutable_parameters", type: "map<string,string>" },
    ],
  },
  {
    name: "GetCapacityRequest",
    fields: [
      { number: 1, name: "volume_capabilities", type: "repeated VolumeCapability" },
      { number: 2, name: "parameters", type: "map<string,string>" },
      { number: 3, name: "accessible_topology", type: "Topology" },
    ],
  },
  {
    name: "GetCapacityResponse",
    fields: [
      { number: 1, name: "available_capacity", type: "int64" },
      { number: 2, name: "maximum_volume_size", type: "google.protobuf.Int64Value" },
      { number: 3, name: "minimum_volume_size", type: "google.protobuf.Int64Value", flags: ["alpha"] },
    ],
  },
  {
    name: "ControllerGetCapabilitiesResponse",
    fields: [{ number: 1, name: "capabilities", type: "repeated ControllerServiceCapability" }],
  },
  {
    name: "ControllerServiceCapability",
    fields: [{ number: 1, name: "rpc", type: "ControllerServiceCapability.RPC", oneof: "type" }],
  },
  {
    name: "ControllerServiceCapability.RPC",
    fields: [{ number: 1, name: "type", type: "enum ControllerServiceCapability.RPC.Type" }],
  },
  {
    name: "CreateSnapshotRequest",
    fields: [
      { number: 1, name: "source_volume_id", type: "string" },
      { number: 2, name: "name", type: "string" },
      { number: 3, name: "secrets", type: "map<string,string>", flags: ["secret"] },
      { number: 4, name: "parameters", type: "map<string,string>" },
    ],
  },
  {
    name: "CreateSnapshotResponse",
    fields: [{ number: 1, name: "snapshot", type: "Snapshot" }],
  },
  {
    name: "DeleteSnapshotRequest",
    fields: [
      { number: 1, name: "snapshot_id", type: "string" },
      { number: 2, name: "secrets", type: "map<string,string>", flags: ["secret"] },
    ],
  },
  {
    name: "ListSnapshotsRequest",
    fields: [
      { number: 1, name: "max_entries", type: "int32" },
      { number: 2, name: "starting_token", type: "string" },
      { number: 3, name: "source_volume_id", type: "string" },
      { number: 4, name: "snapshot_id", type: "string" },
      { number: 5, name: "secrets", type: "map<string,string>", flags: ["secret"] },
    ],
  },
  {
    name: "ListSnapshotsResponse",
    fields: [
      { number: 1, name: "entries", type: "repeated ListSnapshotsResponse.Entry" },
      { number: 2, name: "next_token", type: "string" },
    ],
  },
  {
    name: "ListSnapshotsResponse.Entry",
    fields: [{ number: 1, name: "snapshot", type: "Snapshot" }],
  },
  {
    name: "GetSnapshotRequest",
    fields: [
      { number: 1, name: "snapshot_id", type: "string" },
      { number: 2, name: "secrets", type: "map<string,string>", flags: ["secret"] },
    ],
  },
  {
    name: "GetSnapshotResponse",
    fields: [{ number: 1, name: "snapshot", type: "Snapshot" }],
  },
  {
    name: "ControllerExpandVolumeRequest",
    fields: [
      { number: 1, name: "volume_id", type: "string" },
      { number: 2, name: "capacity_range", type: "CapacityRange" },
      { number: 3, name: "secrets", type: "map<string,string>", flags: ["secret"] },
      { number: 4, name: "volume_capability", type: "VolumeCapability" },
    ],
  },
  {
    name: "ControllerExpandVolumeResponse",
    fields: [
      { number: 1, name: "capacity_bytes", type: "int64" },
      { number: 2, name: "node_expansion_required", type: "bool" },
    ],
  },
  {
    name: "NodeStageVolumeRequest",
    fields: [
      { number: 1, name: "volume_id", type: "string" },
      { number: 2, name: "publish_context", type: "map<string,string>" },
      { number: 3, name: "staging_target_path", type: "string" },
      { number: 4, name: "volume_capability", type: "VolumeCapability" },
      { number: 5, name: "secrets", type: "map<string,string>", flags: ["secret"] },
      { number: 6, name: "volume_context", type: "map<string,string>" },
    ],
  },
  {
    name: "NodeUnstageVolumeRequest",
    fields: [
      { number: 1, name: "volume_id", type: "string" },
      { number: 2, name: "staging_target_path", type: "string" },
    ],
  },
  {
    name: "NodePublishVolumeRequest",
    fields: [
      { number: 1, name: "volume_id", type: "string" },
      { number: 2, name: "publish_context", type: "map<string,string>" },
      { number: 3, name: "staging_target_path", type: "string" },
      { number: 4, name: "target_path", type: "string" },
      { number: 5, name: "volume_capability", type: "VolumeCapability" },
      { number: 6, name: "readonly", type: "bool" },
      { number: 7, name: "secrets", type: "map<string,string>", flags: ["secret"] },
      { number: 8, name: "volume_context", type: "map<string,string>" },
    ],
  },
  {
    name: "NodeUnpublishVolumeRequest",
    fields: [
      { number: 1, name: "volume_id", type: "string" },
      { number: 2, name: "target_path", type: "string" },
    ],
  },
  {
    name: "NodeGetVolumeStatsRequest",
    fields: [
      { number: 1, name: "volume_id", type: "string" },
      { number: 2, name: "volume_path", type: "string" },
      { number: 3, name: "staging_target_path", type: "string" },
    ],
  },
  {
    name: "NodeGetVolumeStatsResponse",
    fields: [
      { number: 1, name: "usage", type: "repeated VolumeUsage" },
      { number: 2, name: "volume_condition", type: "VolumeCondition", flags: ["alpha"] },
    ],
  },
  {
    name: "NodeGetCapabilitiesResponse",
    fields: [{ number: 1, name: "capabilities", type: "repeated NodeServiceCapability" }],
  },
  {
    name: "NodeServiceCapability",
    fields: [{ number: 1, name: "rpc", type: "NodeServiceCapability.RPC", oneof: "type" }],
  },
  {
    name: "NodeServiceCapability.RPC",
    fields: [{ number: 1, name: "type", type: "enum NodeServiceCapability.RPC.Type" }],
  },
  {
    name: "NodeGetInfoResponse",
    fields: [
      { number: 1, name: "node_id", type: "string" },
      { number: 2, name: "max_volumes_per_node", type: "int64" },
      { number: 3, name: "accessible_topology", type: "Topology" },
    ],
  },
  {
    name: "NodeExpandVolumeRequest",
    fields: [
      { number: 1, name: "volume_id", type: "string" },
      { number: 2, name: "volume_path", type: "string" },
      { number: 3, name: "capacity_range", type: "CapacityRange" },
      { number: 4, name: "staging_target_path", type: "string" },
      { number: 5, name: "volume_capability", type: "VolumeCapability" },
      { number: 6, name: "secrets", type: "map<string,string>", flags: ["secret", "alpha"] },
    ],
  },
  {
    name: "NodeExpandVolumeResponse",
    fields: [{ number: 1, name: "capacity_bytes", type: "int64" }],
  },
  {
    name: "GroupControllerGetCapabilitiesResponse",
    fields: [{ number: 1, name: "capabilities", type: "repeated GroupControllerServiceCapability" }],
  },
  {
    name: "GroupControllerServiceCapability",
    fields: [{ number: 1, name: "rpc", type: "GroupControllerServiceCapability.RPC", oneof: "type" }],
  },
  {
    name: "GroupControllerServiceCapability.RPC",
    fields: [{ number: 1, name: "type", type: "enum GroupControllerServiceCapability.RPC.Type" }],
  },
  {
    name: "CreateVolumeGroupSnapshotRequest",
    fields: [
      { number: 1, name: "name", type: "string" },
      { number: 2, name: "source_volume_ids", type: "repeated string" },
      { number: 3, name: "secrets", type: "map<string,string>", flags: ["secret"] },
      { number: 4, name: "parameters", type: "map<string,string>" },
    ],
  },
  {
    name: "CreateVolumeGroupSnapshotResponse",
    fields: [{ number: 1, name: "group_snapshot", type: "VolumeGroupSnapshot" }],
  },
  {
    name: "VolumeGroupSnapshot",
    fields: [
      { number: 1, name: "group_snapshot_id", type: "string" },
      { number: 2, name: "snapshots", type: "repeated Snapshot" },
      { number: 3, name: "creation_time", type: "google.protobuf.Timestamp" },
      { number: 4, name: "ready_to_use", type: "bool" },
    ],
  },
  {
    name: "DeleteVolumeGroupSnapshotRequest",
    fields: [
      { number: 1, name: "group_snapshot_id", type: "string" },
      { number: 2, name: "snapshot_ids", type: "repeated string" },
      { number: 3, name: "secrets", type: "map<string,string>", flags: ["secret"] },
    ],
  },
  {
    name: "GetVolumeGroupSnapshotRequest",
    fields: [
      { number: 1, name: "group_snapshot_id", type: "string" },
      { number: 2, name: "snapshot_ids", type: "repeated string" },
      { number: 3, name: "secrets", type: "map<string,string>", flags: ["secret"] },
    ],
  },
  {
    name: "GetVolumeGroupSnapshotResponse",
    fields: [{ number: 1, name: "group_snapshot", type: "VolumeGroupSnapshot" }],
  },
  {
    name: "BlockMetadata",
    fields: [
      { number: 1, name: "byte_offset", type: "int64" },
      { number: 2, name: "size_bytes", type: "int64" },
    ],
  },
  {
    name: "GetMetadataAllocatedRequest",
    fields: [
      { number: 1, name: "snapshot_id", type: "string" },
      { number: 2, name: "starting_offset", type: "int64" },
      { number: 3, name: "max_results", type: "int32" },
      { number: 4, name: "secrets", type: "map<string,string>", flags: ["secret"] },
    ],
  },
  {
    name: "GetMetadataAllocatedResponse",
    fields: [
      { number: 1, name: "block_metadata_type", type: "enum BlockMetadataType" },
      { number: 2, name: "volume_capacity_bytes", type: "int64" },
      { number: 3, name: "block_metadata", type: "repeated BlockMetadata" },
    ],
  },
  {
    name: "GetMetadataDeltaRequest",
    fields: [
      { number: 1, name: "base_snapshot_id", type: "string" },
      { number: 2, name: "target_snapshot_id", type: "string" },
      { number: 3, name: "starting_offset", type: "int64" },
      { number: 4, name: "max_results", type: "int32" },
      { number: 5, name: "secrets", type: "map<string,string>", flags: ["secret"] },
    ],
  },
  {
    name: "GetMetadataDeltaResponse",
    fields: [
      { number: 1, name: "block_metadata_type", type: "enum BlockMetadataType" },
      { number: 2, name: "volume_capacity_bytes", type: "int64" },
      { number: 3, name: "block_metadata", type: "repeated BlockMetadata" },
    ],
  },
];

export const specEnums: readonly SpecEnum[] = [
  {
    name: "PluginCapability.Service.Type",
    values: [
      { name: "UNKNOWN", number: 0 },
      { name: "CONTROLLER_SERVICE", number: 1 },
      { name: "VOLUME_ACCESSIBILITY_CONSTRAINTS", number: 2 },
      { name: "GROUP_CONTROLLER_SERVICE", number: 3 },
      { name: "SNAPSHOT_METADATA_SERVICE", number: 4 },
    ],
  },
  {
    name: "PluginCapability.VolumeExpansion.Type",
    values: [
      { name: "UNKNOWN", number: 0 },
      { name: "ONLINE", number: 1 },
      { name: "OFFLINE", number: 2 },
    ],
  },
  {
    name: "VolumeCapability.AccessMode.Mode",
    values: [
      { name: "UNKNOWN", number: 0 },
      { name: "SINGLE_NODE_WRITER", number: 1 },
      { name: "SINGLE_NODE_READER_ONLY", number: 2 },
      { name: "MULTI_NODE_READER_ONLY", number: 3 },
      { name: "MULTI_NODE_SINGLE_WRITER", number: 4 },
      { name: "MULTI_NODE_MULTI_WRITER", number: 5 },
      { name: "SINGLE_NODE_SINGLE_WRITER", number: 6 },
      { name: "SINGLE_NODE_MULTI_WRITER", number: 7 },
    ],
  },
  {
    name: "VolumeUsage.Unit",
    values: [
      { name: "UNKNOWN", number: 0 },
      { name: "BYTES", number: 1 },
      { name: "INODES", number: 2 },
    ],
  },
  {
    name: "ControllerServiceCapability.RPC.Type",
    values: [
      { name: "UNKNOWN", number: 0 },
      { name: "CREATE_DELETE_VOLUME", number: 1 },
      { name: "PUBLISH_UNPUBLISH_VOLUME", number: 2 },
      { name: "LIST_VOLUMES", number: 3 },
      { name: "GET_CAPACITY", number: 4 },
      { name: "CREATE_DELETE_SNAPSHOT", number: 5 },
      { name: "LIST_SNAPSHOTS", number: 6 },
      { name: "CLONE_VOLUME", number: 7 },
      { name: "PUBLISH_READONLY", number: 8 },
      { name: "EXPAND_VOLUME", number: 9 },
      { name: "LIST_VOLUMES_PUBLISHED_NODES", number: 10 },
      { name: "VOLUME_CONDITION", number: 11 },
      { name: "GET_VOLUME", number: 12 },
      { name: "SINGLE_NODE_MULTI_WRITER", number: 13 },
      { name: "MODIFY_VOLUME", number: 14 },
      { name: "GET_SNAPSHOT", number: 15 },
    ],
  },
  {
    name: "NodeServiceCapability.RPC.Type",
    values: [
      { name: "UNKNOWN", number: 0 },
      { name: "STAGE_UNSTAGE_VOLUME", number: 1 },
      { name: "GET_VOLUME_STATS", number: 2 },
      { name: "EXPAND_VOLUME", number: 3 },
      { name: "VOLUME_CONDITION", number: 4 },
      { name: "SINGLE_NODE_MULTI_WRITER", number: 5 },
      { name: "VOLUME_MOUNT_GROUP", number: 6 },
    ],
  },
  {
    name: "GroupControllerServiceCapability.RPC.Type",
    values: [
      { name: "UNKNOWN", number: 0 },
      { name: "CREATE_DELETE_GET_VOLUME_GROUP_SNAPSHOT", number: 1 },
    ],
  },
  {
    name: "BlockMetadataType",
    values: [
      { name: "UNKNOWN", number: 0 },
      { name: "FIXED_LENGTH", number: 1 },
      { name: "VARIABLE_LENGTH", number: 2 },
    ],
  },
];
