/**
 * The kubelet's calls to a driver's Node service (Kubernetes' csi_client.go): capability checks,
 * and Stage / Publish / Unpublish / Unstage requests built exactly as the kubelet builds them —
 * access modes mapped to CSI (SINGLE_NODE_MULTI_WRITER drivers get the finer modes), `fs_type`
 * `block` for raw block, fsGroup as `volume_mount_group`. Capabilities are asked afresh for every
 * check, as the kubelet does. NodeStage and NodePublish failures with a non-final gRPC code
 * (DeadlineExceeded, Unavailable, Canceled, ResourceExhausted, Aborted) become
 * UncertainProgressError: the driver may still finish, so the mount is recorded as uncertain.
 */
import { isFinalCsiError } from "../../../csi/grpc/errors.ts";
import type { AccessModeName, NodeRpcType, VolumeCapability } from "../../../csi/proto/types.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import { UncertainProgressError } from "../../errors.ts";
import type { AccessMode } from "../../spec.ts";
import { csiBlockFsType } from "./csi-constants.ts";
import type { RegisteredCsiDriver } from "./csi-driver-registry.ts";

interface NodeStageArgs {
  volumeHandle: string;
  publishContext: Readonly<Record<string, string>>;
  stagingPath: string;
  /** `block` for raw block volumes. */
  fsType: string;
  accessMode: AccessMode;
  secrets: Readonly<Record<string, string>>;
  volumeContext: Readonly<Record<string, string>>;
  mountOptions: readonly string[];
}

interface NodePublishArgs extends NodeStageArgs {
  readOnly: boolean;
  targetPath: string;
  /** Sent as `volume_mount_group` (drivers with VOLUME_MOUNT_GROUP apply it themselves). */
  fsGroup?: number;
}

/** NodeExpandVolume arguments: `volumePath` is the pod's publish path, `stagingPath` "" without staging. */
interface NodeExpandArgs {
  volumeHandle: string;
  volumePath: string;
  stagingPath: string;
  requiredBytes: bigint;
  fsType: string;
  accessMode: AccessMode;
  mountOptions: readonly string[];
  secrets: Readonly<Record<string, string>>;
}

const plainAccessModes: Readonly<Record<AccessMode, AccessModeName>> = {
  ReadWriteOnce: "SINGLE_NODE_WRITER",
  ReadOnlyMany: "MULTI_NODE_READER_ONLY",
  ReadWriteMany: "MULTI_NODE_MULTI_WRITER",
  // Lets drivers without SINGLE_NODE_MULTI_WRITER serve ReadWriteOncePod volumes.
  ReadWriteOncePod: "SINGLE_NODE_WRITER",
};

const multiWriterAccessModes: Readonly<Record<AccessMode, AccessModeName>> = {
  ReadWriteOnce: "SINGLE_NODE_MULTI_WRITER",
  ReadOnlyMany: "MULTI_NODE_READER_ONLY",
  ReadWriteMany: "MULTI_NODE_MULTI_WRITER",
  ReadWriteOncePod: "SINGLE_NODE_SINGLE_WRITER",
};

/** A NodeStage / NodePublish failure that may still complete on the driver becomes uncertain. */
function classified(err: unknown): unknown {
  return isFinalCsiError(err) ? err : new UncertainProgressError(errorMessage(err), { cause: err });
}

function volumeCapability(args: NodeStageArgs, mode: AccessModeName, fsGroup?: number): VolumeCapability {
  const accessMode = { mode };
  if (args.fsType === csiBlockFsType) return { block: {}, accessMode };
  return {
    mount: { fsType: args.fsType, mountFlags: [...args.mountOptions], volumeMountGroup: fsGroup?.toString() ?? "" },
    accessMode,
  };
}

export class CsiNodeCalls {
  constructor(private readonly driver: RegisteredCsiDriver) {}

  get driverName(): string {
    return this.driver.name;
  }

  /** NodeGetCapabilities; the answer is also kept in the registry for diagnosis. */
  async capabilities(): Promise<ReadonlySet<NodeRpcType>> {
    const response = await this.driver.client.nodeGetCapabilities({});
    const types = response.capabilities
      .map((capability) => capability.rpc?.type)
      .filter((type): type is NodeRpcType => typeof type === "string");
    this.driver.capabilities = types;
    return new Set(types);
  }

  async supportsStageUnstage(): Promise<boolean> {
    return (await this.capabilities()).has("STAGE_UNSTAGE_VOLUME");
  }

  async supportsVolumeMountGroup(): Promise<boolean> {
    return (await this.capabilities()).has("VOLUME_MOUNT_GROUP");
  }

  /** The node can grow a volume's filesystem (EXPAND_VOLUME); without it the kubelet skips NodeExpandVolume. */
  async supportsNodeExpand(): Promise<boolean> {
    return (await this.capabilities()).has("EXPAND_VOLUME");
  }

  /** NodeExpandVolume to exactly `requiredBytes` (the PV's size), as csi_client's NodeExpandVolume asks. */
  async expandVolume(args: NodeExpandArgs): Promise<void> {
    if (args.volumeHandle === "") throw new Error("missing volume id");
    if (args.volumePath === "") throw new Error("missing volume path");
    if (args.requiredBytes <= 0n) throw new Error("size can not be less than or equal to 0");
    const mode = await this.accessModeName(args.accessMode);
    const capability = volumeCapability({ ...args, publishContext: {}, volumeContext: {} }, mode);
    await this.driver.client.nodeExpandVolume({
      volumeId: args.volumeHandle,
      volumePath: args.volumePath,
      capacityRange: { requiredBytes: Number(args.requiredBytes), limitBytes: 0 },
      stagingTargetPath: args.stagingPath,
      volumeCapability: capability,
      secrets: { ...args.secrets },
    });
  }

  async stageVolume(args: NodeStageArgs): Promise<void> {
    if (args.volumeHandle === "") throw new Error("missing volume id");
    if (args.stagingPath === "") throw new Error("missing staging target path");
    const mode = await this.accessModeName(args.accessMode);
    try {
      await this.driver.client.nodeStageVolume({
        volumeId: args.volumeHandle,
        publishContext: { ...args.publishContext },
        stagingTargetPath: args.stagingPath,
        volumeCapability: volumeCapability(args, mode),
        secrets: { ...args.secrets },
        volumeContext: { ...args.volumeContext },
      });
    } catch (err) {
      throw classified(err);
    }
  }

  async publishVolume(args: NodePublishArgs): Promise<void> {
    if (args.volumeHandle === "") throw new Error("missing volume id");
    if (args.targetPath === "") throw new Error("missing target path");
    const mode = await this.accessModeName(args.accessMode);
    try {
      await this.driver.client.nodePublishVolume({
        volumeId: args.volumeHandle,
        publishContext: { ...args.publishContext },
        stagingTargetPath: args.stagingPath,
        targetPath: args.targetPath,
        volumeCapability: volumeCapability(args, mode, args.fsGroup),
        readonly: args.readOnly,
        secrets: { ...args.secrets },
        volumeContext: { ...args.volumeContext },
      });
    } catch (err) {
      throw classified(err);
    }
  }

  async unpublishVolume(volumeHandle: string, targetPath: string): Promise<void> {
    if (volumeHandle === "") throw new Error("missing volume id");
    if (targetPath === "") throw new Error("missing target path");
    await this.driver.client.nodeUnpublishVolume({ volumeId: volumeHandle, targetPath });
  }

  async unstageVolume(volumeHandle: string, stagingPath: string): Promise<void> {
    if (volumeHandle === "") throw new Error("missing volume id");
    if (stagingPath === "") throw new Error("missing staging target path");
    await this.driver.client.nodeUnstageVolume({ volumeId: volumeHandle, stagingTargetPath: stagingPath });
  }

  /** Asks for SINGLE_NODE_MULTI_WRITER, as the kubelet does before each Stage and Publish. */
  private async accessModeName(accessMode: AccessMode): Promise<AccessModeName> {
    const multiWriter = (await this.capabilities()).has("SINGLE_NODE_MULTI_WRITER");
    return (multiWriter ? multiWriterAccessModes : plainAccessModes)[accessMode] ?? "UNKNOWN";
  }
}
