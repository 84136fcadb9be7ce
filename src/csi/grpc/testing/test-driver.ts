/**
 * A small in-memory CSI driver for the transport tests: it keeps volumes, attachments, staging
 * and publish paths in maps and answers every RPC from them, with the spec's error codes. One
 * volume id can be told to hang, to exercise deadlines without any timer.
 */
import type {
  ControllerExpandVolumeRequest,
  ControllerExpandVolumeResponse,
  ControllerGetCapabilitiesResponse,
  ControllerPublishVolumeRequest,
  ControllerPublishVolumeResponse,
  ControllerUnpublishVolumeRequest,
  CreateSnapshotRequest,
  CreateSnapshotResponse,
  CreateVolumeRequest,
  CreateVolumeResponse,
  DeleteSnapshotRequest,
  DeleteVolumeRequest,
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
  NodeStageVolumeRequest,
  NodeUnpublishVolumeRequest,
  NodeUnstageVolumeRequest,
  ProbeResponse,
  ValidateVolumeCapabilitiesRequest,
  ValidateVolumeCapabilitiesResponse,
  Volume,
  VolumeCapability,
} from "../../proto/types.ts";
import { CsiError } from "../errors.ts";
import type { CsiClient, CsiController, CsiIdentity, CsiNode } from "../services.ts";

export const testDriverName = "test.csi.kvol.io";
const testNodeId = "node-1";

interface StoredVolume {
  volume: Volume;
  publishedNodeIds: Set<string>;
}

export class TestDriver implements CsiIdentity, CsiController, CsiNode {
  private readonly volumes = new Map<string, StoredVolume>();
  /** staging path → volume id */
  readonly stagedPaths = new Map<string, string>();
  /** target path → volume id */
  readonly publishedPaths = new Map<string, string>();
  /** Requests in the order the driver received them, as it received them. */
  readonly received: unknown[] = [];
  private readonly hangingCalls: (() => void)[] = [];

  /** Calls naming this volume id never answer until `releaseHangingCalls()`. */
  hangingVolumeId = "vol-hang";

  addVolume(volumeId: string, capacityBytes: number): void {
    const volume: Volume = { capacityBytes, volumeId, volumeContext: {}, contentSource: null, accessibleTopology: [] };
    this.volumes.set(volumeId, { volume, publishedNodeIds: new Set() });
  }

  releaseHangingCalls(): void {
    for (const release of this.hangingCalls.splice(0)) release();
  }

  async getPluginInfo(request: EmptyMessage): Promise<GetPluginInfoResponse> {
    this.received.push(request);
    return { name: testDriverName, vendorVersion: "1.0.0", manifest: { commit: "abc123" } };
  }

  async getPluginCapabilities(request: EmptyMessage): Promise<GetPluginCapabilitiesResponse> {
    this.received.push(request);
    return {
      capabilities: [{ service: { type: "CONTROLLER_SERVICE" } }, { volumeExpansion: { type: "ONLINE" } }],
    };
  }

  async probe(request: EmptyMessage): Promise<ProbeResponse> {
    this.received.push(request);
    return { ready: { value: true } };
  }

  async createVolume(request: CreateVolumeRequest): Promise<CreateVolumeResponse> {
    this.received.push(request);
    if (request.name === "") throw new CsiError("InvalidArgument", "name is required");
    const volumeId = `vol-${request.name}`;
    if (!this.volumes.has(volumeId)) this.addVolume(volumeId, request.capacityRange?.requiredBytes ?? 0);
    return { volume: this.stored(volumeId).volume };
  }

  async deleteVolume(request: DeleteVolumeRequest): Promise<EmptyMessage> {
    this.received.push(request);
    if (this.volumes.get(request.volumeId)?.publishedNodeIds.size) {
      throw new CsiError("FailedPrecondition", `volume ${request.volumeId} is still published`);
    }
    this.volumes.delete(request.volumeId);
    return {};
  }

  async controllerPublishVolume(request: ControllerPublishVolumeRequest): Promise<ControllerPublishVolumeResponse> {
    this.received.push(request);
    this.stored(request.volumeId).publishedNodeIds.add(request.nodeId);
    return { publishContext: { devicePath: `/dev/disk/by-id/${request.volumeId}` } };
  }

  async controllerUnpublishVolume(request: ControllerUnpublishVolumeRequest): Promise<EmptyMessage> {
    this.received.push(request);
    this.volumes.get(request.volumeId)?.publishedNodeIds.delete(request.nodeId);
    return {};
  }

  async validateVolumeCapabilities(
    request: ValidateVolumeCapabilitiesRequest,
  ): Promise<ValidateVolumeCapabilitiesResponse> {
    this.received.push(request);
    this.stored(request.volumeId);
    const confirmed = {
      volumeContext: request.volumeContext,
      volumeCapabilities: request.volumeCapabilities,
      parameters: request.parameters,
      mutableParameters: {},
    };
    return { confirmed, message: "" };
  }

  async listVolumes(request: ListVolumesRequest): Promise<ListVolumesResponse> {
    this.received.push(request);
    const entries = [...this.volumes.values()].map((stored) => ({
      volume: stored.volume,
      status: { publishedNodeIds: [...stored.publishedNodeIds], volumeCondition: null },
    }));
    return { entries, nextToken: "" };
  }

  async controllerGetCapabilities(request: EmptyMessage): Promise<ControllerGetCapabilitiesResponse> {
    this.received.push(request);
    return {
      capabilities: [{ rpc: { type: "CREATE_DELETE_VOLUME" } }, { rpc: { type: "PUBLISH_UNPUBLISH_VOLUME" } }],
    };
  }

  async getCapacity(request: GetCapacityRequest): Promise<GetCapacityResponse> {
    this.received.push(request);
    return { availableCapacity: 0, maximumVolumeSize: null };
  }

  async controllerExpandVolume(request: ControllerExpandVolumeRequest): Promise<ControllerExpandVolumeResponse> {
    this.received.push(request);
    const stored = this.stored(request.volumeId);
    stored.volume.capacityBytes = Math.max(stored.volume.capacityBytes, request.capacityRange?.requiredBytes ?? 0);
    return { capacityBytes: stored.volume.capacityBytes, nodeExpansionRequired: true };
  }

  async createSnapshot(request: CreateSnapshotRequest): Promise<CreateSnapshotResponse> {
    this.received.push(request);
    throw new CsiError("Unimplemented", "the test driver takes no snapshots");
  }

  async deleteSnapshot(request: DeleteSnapshotRequest): Promise<EmptyMessage> {
    this.received.push(request);
    throw new CsiError("Unimplemented", "the test driver takes no snapshots");
  }

  async listSnapshots(request: ListSnapshotsRequest): Promise<ListSnapshotsResponse> {
    this.received.push(request);
    throw new CsiError("Unimplemented", "the test driver takes no snapshots");
  }

  async nodeStageVolume(request: NodeStageVolumeRequest): Promise<EmptyMessage> {
    this.received.push(request);
    if (request.volumeId === this.hangingVolumeId)
      await new Promise<void>((release) => this.hangingCalls.push(release));
    this.stored(request.volumeId);
    if (request.volumeCapability === null) throw new CsiError("InvalidArgument", "volume_capability is required");
    this.stagedPaths.set(request.stagingTargetPath, request.volumeId);
    return {};
  }

  async nodeUnstageVolume(request: NodeUnstageVolumeRequest): Promise<EmptyMessage> {
    this.received.push(request);
    this.stagedPaths.delete(request.stagingTargetPath);
    return {};
  }

  async nodePublishVolume(request: NodePublishVolumeRequest): Promise<EmptyMessage> {
    this.received.push(request);
    this.stored(request.volumeId);
    if (this.stagedPaths.get(request.stagingTargetPath) !== request.volumeId) {
      throw new CsiError(
        "FailedPrecondition",
        `volume ${request.volumeId} is not staged at ${request.stagingTargetPath}`,
      );
    }
    this.publishedPaths.set(request.targetPath, request.volumeId);
    return {};
  }

  async nodeUnpublishVolume(request: NodeUnpublishVolumeRequest): Promise<EmptyMessage> {
    this.received.push(request);
    this.publishedPaths.delete(request.targetPath);
    return {};
  }

  async nodeGetVolumeStats(request: NodeGetVolumeStatsRequest): Promise<NodeGetVolumeStatsResponse> {
    this.received.push(request);
    if (this.publishedPaths.get(request.volumePath) !== request.volumeId) {
      throw new CsiError("NotFound", `volume ${request.volumeId} is not published at ${request.volumePath}`);
    }
    const total = this.stored(request.volumeId).volume.capacityBytes;
    return { usage: [{ available: total, total, used: 0, unit: "BYTES" }], volumeCondition: null };
  }

  async nodeExpandVolume(request: NodeExpandVolumeRequest): Promise<NodeExpandVolumeResponse> {
    this.received.push(request);
    return { capacityBytes: this.stored(request.volumeId).volume.capacityBytes };
  }

  async nodeGetCapabilities(request: EmptyMessage): Promise<NodeGetCapabilitiesResponse> {
    this.received.push(request);
    const types = ["STAGE_UNSTAGE_VOLUME", "GET_VOLUME_STATS", "EXPAND_VOLUME"] as const;
    return { capabilities: types.map((type) => ({ rpc: { type } })) };
  }

  async nodeGetInfo(request: EmptyMessage): Promise<NodeGetInfoResponse> {
    this.received.push(request);
    return {
      nodeId: testNodeId,
      maxVolumesPerNode: 16,
      accessibleTopology: { segments: { "topology.kvol.io/zone": "z1" } },
    };
  }

  private stored(volumeId: string): StoredVolume {
    const stored = this.volumes.get(volumeId);
    if (stored === undefined) throw new CsiError("NotFound", `volume ${volumeId} does not exist`);
    return stored;
  }
}

export const gibibyteBytes = 2 ** 30;

export const mountCapability: VolumeCapability = {
  mount: { fsType: "ext4", mountFlags: ["noatime"], volumeMountGroup: "" },
  accessMode: { mode: "SINGLE_NODE_WRITER" },
};

export type Settled = { response: unknown } | { error: { code: string; message: string } };

async function settle(call: Promise<unknown>): Promise<Settled> {
  try {
    return { response: await call };
  } catch (error) {
    if (!(error instanceof CsiError)) throw error;
    return { error: { code: error.code, message: error.statusMessage } };
  }
}

/**
 * One volume's whole life through every RPC of the CSI interfaces, as the provisioner, attacher
 * and kubelet would drive it, plus a stage of a volume that does not exist. Returns each outcome.
 */
export async function driveVolumeLifecycle(client: CsiClient): Promise<Settled[]> {
  const stagingTargetPath = "/var/lib/kubelet/plugins/kubernetes.io/csi/test.csi.kvol.io/0a1b/globalmount";
  const targetPath = "/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~csi/pv-1/mount";
  const secrets = { token: "s3cr3t" };
  const outcomes: Settled[] = [];
  const record = async (call: Promise<unknown>): Promise<unknown> => {
    const outcome = await settle(call);
    outcomes.push(outcome);
    return "response" in outcome ? outcome.response : undefined;
  };
  await record(client.probe({}));
  await record(client.getPluginInfo({}));
  await record(client.getPluginCapabilities({}));
  await record(client.controllerGetCapabilities({}));
  const created = (await record(
    client.createVolume({
      name: "pvc-1",
      capacityRange: { requiredBytes: 5 * gibibyteBytes, limitBytes: 0 },
      volumeCapabilities: [mountCapability],
      parameters: { type: "ssd" },
      secrets,
      volumeContentSource: null,
      accessibilityRequirements: null,
      mutableParameters: {},
    }),
  )) as CreateVolumeResponse;
  const volumeId = created.volume?.volumeId ?? "";
  const volumeContext = created.volume?.volumeContext ?? {};
  await record(
    client.validateVolumeCapabilities({
      volumeId,
      volumeContext,
      volumeCapabilities: [mountCapability],
      parameters: {},
      secrets: {},
      mutableParameters: {},
    }),
  );
  await record(client.nodeGetInfo({}));
  await record(client.nodeGetCapabilities({}));
  const published = (await record(
    client.controllerPublishVolume({
      volumeId,
      nodeId: testNodeId,
      volumeCapability: mountCapability,
      readonly: false,
      secrets,
      volumeContext,
    }),
  )) as ControllerPublishVolumeResponse;
  const publishContext = published.publishContext;
  const stage = { publishContext, stagingTargetPath, volumeCapability: mountCapability, secrets, volumeContext };
  await record(client.nodeStageVolume({ volumeId: "vol-missing", ...stage }));
  await record(client.nodeStageVolume({ volumeId, ...stage }));
  await record(
    client.nodePublishVolume({ volumeId, targetPath, readonly: false, ...stage, volumeCapability: mountCapability }),
  );
  await record(client.nodeGetVolumeStats({ volumeId, volumePath: targetPath, stagingTargetPath }));
  await record(
    client.controllerExpandVolume({
      volumeId,
      capacityRange: { requiredBytes: 8 * gibibyteBytes, limitBytes: 0 },
      secrets,
      volumeCapability: mountCapability,
    }),
  );
  await record(
    client.nodeExpandVolume({
      volumeId,
      volumePath: targetPath,
      capacityRange: { requiredBytes: 8 * gibibyteBytes, limitBytes: 0 },
      stagingTargetPath,
      volumeCapability: mountCapability,
      secrets: {},
    }),
  );
  await record(client.listVolumes({ maxEntries: 0, startingToken: "" }));
  await record(client.nodeUnpublishVolume({ volumeId, targetPath }));
  await record(client.nodeUnstageVolume({ volumeId, stagingTargetPath }));
  await record(client.controllerUnpublishVolume({ volumeId, nodeId: testNodeId, secrets }));
  await record(client.deleteVolume({ volumeId, secrets }));
  return outcomes;
}
