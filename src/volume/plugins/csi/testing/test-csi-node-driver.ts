/**
 * A small CSI node plugin for the kubelet plugin's tests, in the spirit of Kubernetes' CSI mock
 * driver: it does real work on the simulated node (NodeStage mounts a fresh tmpfs on the staging
 * path, NodePublish bind-mounts it into the pod — or mounts a tmpfs there for drivers that do not
 * stage; raw block volumes are a link to a block device), keeps the order of the calls it received,
 * and can be told to fail or to hang on its next call of a given RPC. Mount points are checked
 * against the mount table, so repeated calls are idempotent.
 */
import type { CsiError } from "../../../../csi/grpc/errors.ts";
import type { CsiIdentity, CsiImplementations, CsiNode } from "../../../../csi/grpc/services.ts";
import type {
  GetPluginCapabilitiesResponse,
  GetPluginInfoResponse,
  NodeExpandVolumeRequest,
  NodeExpandVolumeResponse,
  NodeGetCapabilitiesResponse,
  NodeGetInfoResponse,
  NodeGetVolumeStatsResponse,
  NodePublishVolumeRequest,
  NodeRpcType,
  NodeStageVolumeRequest,
  NodeUnpublishVolumeRequest,
  NodeUnstageVolumeRequest,
  ProbeResponse,
} from "../../../../csi/proto/types.ts";
import { type Host, isHostError } from "../../../../host/host.ts";
import { cleanupMountPoint } from "../../../../host/mount/cleanup-mount-point.ts";
import { isNotMountPoint } from "../../../../host/mount/mount-points.ts";
import { Mounter } from "../../../../host/mount/mounter.ts";

export const testCsiDriverName = "test.csi.kvol.io";

type NodeMethod =
  | "NodeStageVolume"
  | "NodePublishVolume"
  | "NodeUnpublishVolume"
  | "NodeUnstageVolume"
  | "NodeGetInfo"
  | "NodeExpandVolume";

export interface TestCsiNodeDriverOptions {
  host: Host;
  name?: string;
  nodeId?: string;
  capabilities?: readonly NodeRpcType[];
  maxVolumesPerNode?: number;
  topology?: Readonly<Record<string, string>>;
  /** Block device path per volume id, for raw block volumes. */
  blockDevices?: Readonly<Record<string, string>>;
}

/** A call made to hang: it answers only after `release()`, long after the caller gave up. */
interface HeldCall {
  release(): void;
}

type Fault = { kind: "fail"; error: CsiError } | { kind: "hang"; released: Promise<void> };

export class TestCsiNodeDriver implements CsiIdentity, CsiNode {
  /** RPC names in the order the driver received them. */
  readonly received: string[] = [];
  /** NodeExpandVolume requests as received. */
  readonly expandRequests: NodeExpandVolumeRequest[] = [];
  readonly name: string;
  private readonly host: Host;
  private readonly mounter: Mounter;
  private readonly faults = new Map<NodeMethod, Fault[]>();
  private readonly blockDevices: Map<string, string>;

  constructor(private readonly options: TestCsiNodeDriverOptions) {
    this.host = options.host;
    this.name = options.name ?? testCsiDriverName;
    this.mounter = new Mounter(options.host);
    this.blockDevices = new Map(Object.entries(options.blockDevices ?? {}));
  }

  /** Raw block volume `volumeId` is the node's block device `devicePath`. */
  setBlockDevice(volumeId: string, devicePath: string): void {
    this.blockDevices.set(volumeId, devicePath);
  }

  get implementations(): CsiImplementations {
    return { identity: this, node: this };
  }

  /** The next `method` call fails with `error` without doing anything. */
  failNext(method: NodeMethod, error: CsiError): void {
    this.addFault(method, { kind: "fail", error });
  }

  /** The next `method` call waits until released, then does its work. */
  hangNext(method: NodeMethod): HeldCall {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.addFault(method, { kind: "hang", released });
    return { release };
  }

  async getPluginInfo(): Promise<GetPluginInfoResponse> {
    this.received.push("GetPluginInfo");
    return { name: this.name, vendorVersion: "0.1.0", manifest: {} };
  }

  async getPluginCapabilities(): Promise<GetPluginCapabilitiesResponse> {
    this.received.push("GetPluginCapabilities");
    return { capabilities: [] };
  }

  async probe(): Promise<ProbeResponse> {
    this.received.push("Probe");
    return { ready: null };
  }

  async nodeGetInfo(): Promise<NodeGetInfoResponse> {
    await this.enter("NodeGetInfo");
    const topology = this.options.topology;
    return {
      nodeId: this.options.nodeId ?? this.host.nodeName,
      maxVolumesPerNode: this.options.maxVolumesPerNode ?? 0,
      accessibleTopology: topology === undefined ? null : { segments: { ...topology } },
    };
  }

  async nodeGetCapabilities(): Promise<NodeGetCapabilitiesResponse> {
    this.received.push("NodeGetCapabilities");
    const types = this.options.capabilities ?? ["STAGE_UNSTAGE_VOLUME"];
    return { capabilities: types.map((type) => ({ rpc: { type } })) };
  }

  async nodeStageVolume(request: NodeStageVolumeRequest): Promise<Record<string, never>> {
    await this.enter("NodeStageVolume");
    if (request.volumeCapability?.block !== undefined) return {};
    await this.mountTmpfsOnce(request.stagingTargetPath);
    return {};
  }

  async nodeUnstageVolume(request: NodeUnstageVolumeRequest): Promise<Record<string, never>> {
    await this.enter("NodeUnstageVolume");
    if (!(await this.isMounted(request.stagingTargetPath))) return {};
    await this.mounter.unmount(request.stagingTargetPath);
    return {};
  }

  async nodePublishVolume(request: NodePublishVolumeRequest): Promise<Record<string, never>> {
    await this.enter("NodePublishVolume");
    if (request.volumeCapability?.block !== undefined) {
      await this.linkBlockDevice(request.volumeId, request.targetPath);
      return {};
    }
    await this.host.mkdir(request.targetPath, 0o750, { recursive: true });
    if (request.stagingTargetPath === "") await this.mountTmpfsOnce(request.targetPath);
    else await this.bindOnce(request.stagingTargetPath, request.targetPath, request.readonly);
    return {};
  }

  async nodeUnpublishVolume(request: NodeUnpublishVolumeRequest): Promise<Record<string, never>> {
    await this.enter("NodeUnpublishVolume");
    const stat = await this.host.lstat(request.targetPath).catch((err: unknown) => {
      if (isHostError(err, "ENOENT")) return undefined;
      throw err;
    });
    if (stat?.type === "symlink") await this.host.unlink(request.targetPath);
    else if (stat !== undefined) await cleanupMountPoint(this.host, this.mounter, request.targetPath, false);
    return {};
  }

  async nodeGetVolumeStats(): Promise<NodeGetVolumeStatsResponse> {
    return { usage: [], volumeCondition: null };
  }

  async nodeExpandVolume(request: NodeExpandVolumeRequest): Promise<NodeExpandVolumeResponse> {
    this.expandRequests.push(structuredClone(request));
    await this.enter("NodeExpandVolume");
    return { capacityBytes: request.capacityRange?.requiredBytes ?? 0 };
  }

  private addFault(method: NodeMethod, fault: Fault): void {
    const queue = this.faults.get(method) ?? [];
    queue.push(fault);
    this.faults.set(method, queue);
  }

  /** Records the call and applies the next fault queued for it. */
  private async enter(method: NodeMethod): Promise<void> {
    this.received.push(method);
    const fault = this.faults.get(method)?.shift();
    if (fault?.kind === "fail") throw fault.error;
    if (fault?.kind === "hang") await fault.released;
  }

  private async mountTmpfsOnce(target: string): Promise<void> {
    if (!(await this.isMounted(target))) await this.mounter.mount("tmpfs", target, "tmpfs", []);
  }

  private async isMounted(path: string): Promise<boolean> {
    try {
      return !(await isNotMountPoint(this.host, path));
    } catch (err) {
      if (isHostError(err, "ENOENT")) return false;
      throw err;
    }
  }

  private async bindOnce(source: string, target: string, readOnly: boolean): Promise<void> {
    if (await this.isMounted(target)) return;
    await this.mounter.mount(source, target, "", readOnly ? ["bind", "ro"] : ["bind"]);
  }

  private async linkBlockDevice(volumeId: string, publishPath: string): Promise<void> {
    const device = this.blockDevices.get(volumeId);
    if (device === undefined) throw new Error(`test driver: no block device for volume ${volumeId}`);
    const existing = await this.host.readlink(publishPath).catch((err: unknown) => {
      if (isHostError(err, "ENOENT")) return undefined;
      throw err;
    });
    if (existing === undefined) await this.host.symlink(device, publishPath);
  }
}
