/**
 * SetUp and TearDown of a CSI volume for one pod (csi_mounter.go, spec §5.9).
 *
 * SetUp: NodePublishVolume (of a persistent or an inline ephemeral volume; the latter without
 * staging path or publish context, its id made by the kubelet, see csi-ephemeral.ts) to `pods/<uid>/volumes/kubernetes.io~csi/<spec>/mount`, after creating
 * its parent (0750) and writing `vol_data.json` there (spec name, handle, driver, node,
 * lifecycle mode, VolumeAttachment name) — the file lets teardown and reconstruction work without
 * the API. The staging path is passed when the driver stages; the publish context comes from the
 * VolumeAttachment; pod information is added when the CSIDriver asks for it. A final failure
 * removes what SetUp created; an uncertain one keeps it for the teardown that will follow.
 *
 * TearDown: NodeUnpublishVolume, then the kubelet removes `mount`, `vol_data.json` and the parent —
 * unless `mount` is still a mount point; a corrupted mount fails the check (spec §8.3).
 */
import { posix } from "node:path";
import type { Pod } from "kubernetes-types/core/v1.js";
import { isHostError } from "../../../host/host.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import { goQuote } from "../../../runtime/go-quote.ts";
import { isOperationFinishedError, TransientOperationFailure } from "../../errors.ts";
import { csiPluginName, csiPublishTargetPath, podVolumeDir } from "../../paths.ts";
import type { MounterArgs, VolumeAttributes, VolumeMounter, VolumeUnmounter } from "../../plugin.ts";
import type { VolumeSpec } from "../../spec.ts";
import { podUIDOf } from "../pod-uid.ts";
import { csiDirMode, csiMessagePrefix, persistentLifecycleMode } from "./csi-constants.ts";
import { credentialsFromSecret } from "./csi-credentials.ts";
import { csiDeviceMountPath } from "./csi-device-mount.ts";
import { checkLifecycleModeSupported } from "./csi-driver-policy.ts";
import type { CsiNodeCalls } from "./csi-node-calls.ts";
import { attachmentNameOnNode, type CsiNodeContext, driverCalls, publishContextOf } from "./csi-node-context.ts";
import { publishVolumeContext } from "./csi-pod-info.ts";
import { type CsiPublishSource, csiAccessModeOf, csiPublishSource, csiReadOnlyOf } from "./csi-source.ts";
import { removeMountDir } from "./remove-mount-dir.ts";
import { isVolumeDataMissing, loadVolumeData, saveVolumeData, volumeDataKey } from "./volume-data.ts";

function transient(what: string, err: unknown): TransientOperationFailure {
  return new TransientOperationFailure(`${csiMessagePrefix}${what}: ${errorMessage(err)}`, { cause: err });
}

export class CsiMounter implements VolumeMounter {
  private readonly podUID: string;

  constructor(
    private readonly context: CsiNodeContext,
    private readonly spec: VolumeSpec,
    private readonly pod: Pod,
  ) {
    csiPublishSource(spec, pod);
    this.podUID = podUIDOf(pod);
  }

  getPath(): string {
    return csiPublishTargetPath(this.context.node.rootDir, this.podUID, this.spec.name());
  }

  getAttributes(): VolumeAttributes {
    const readOnly = csiReadOnlyOf(this.spec);
    return { readOnly, managed: !readOnly };
  }

  async setUp(args: MounterArgs): Promise<void> {
    const source = csiPublishSource(this.spec, this.pod);
    const calls = driverCalls(this.context, source.driver, "mounter.SetUpAt failed to get CSI client");
    try {
      checkLifecycleModeSupported(this.context.api, source.driver, source.lifecycleMode);
    } catch (err) {
      throw transient("mounter.SetupAt failed to check volume lifecycle mode", err);
    }
    // Inline ephemeral volumes are neither staged nor attached.
    const persistent = source.lifecycleMode === persistentLifecycleMode;
    const stagingPath = persistent ? await this.stagingPathIfStaged(calls) : "";
    let publishContext: Record<string, string> = {};
    try {
      if (persistent) publishContext = await publishContextOf(this.context, source.volumeHandle, source.driver);
    } catch (err) {
      throw transient("mounter.SetUpAt failed to fetch publishContext", err);
    }
    await this.writeVolumeData(source);
    try {
      await this.publish(calls, source, args, stagingPath, publishContext);
    } catch (err) {
      if (isOperationFinishedError(err)) await this.removeAfterFailure();
      throw err;
    }
  }

  private async stagingPathIfStaged(calls: CsiNodeCalls): Promise<string> {
    let staged: boolean;
    try {
      staged = await calls.supportsStageUnstage();
    } catch (err) {
      throw new Error(
        `${csiMessagePrefix}mounter.SetUpAt failed to check for STAGE_UNSTAGE_VOLUME capability: ${errorMessage(err)}`,
      );
    }
    if (!staged) return "";
    try {
      return csiDeviceMountPath(this.context, this.spec);
    } catch (err) {
      throw new Error(`${csiMessagePrefix}mounter.SetUpAt failed to make device mount path: ${errorMessage(err)}`);
    }
  }

  /** The parent of `mount` (0750) and the `vol_data.json` teardown and reconstruction read. */
  private async writeVolumeData(source: CsiPublishSource): Promise<void> {
    const { volumeHandle, driver: driverName } = source;
    const { host, nodeName } = this.context.node;
    const parentDir = posix.dirname(this.getPath());
    try {
      await host.mkdir(parentDir, csiDirMode, { recursive: true });
    } catch (err) {
      throw new Error(
        `${csiMessagePrefix}mounter.SetUpAt failed to create dir ${goQuote(parentDir)}:  ${errorMessage(err)}`,
      );
    }
    try {
      await saveVolumeData(host, parentDir, {
        [volumeDataKey.specVolID]: this.spec.name(),
        [volumeDataKey.volumeHandle]: volumeHandle,
        [volumeDataKey.driverName]: driverName,
        [volumeDataKey.nodeName]: nodeName,
        [volumeDataKey.volumeLifecycleMode]: source.lifecycleMode,
        [volumeDataKey.attachmentID]: attachmentNameOnNode(this.context, volumeHandle, driverName),
      });
    } catch (err) {
      throw transient("mounter.SetUpAt failed to save volume info data", err);
    }
  }

  private async publish(
    calls: CsiNodeCalls,
    source: CsiPublishSource,
    args: MounterArgs,
    stagingPath: string,
    publishContext: Record<string, string>,
  ): Promise<void> {
    let secrets: Record<string, string> = {};
    const secretRef = source.nodePublishSecretRef;
    if (secretRef !== undefined) {
      try {
        secrets = await credentialsFromSecret(this.context.volumeHost.api, secretRef);
      } catch (err) {
        const where = `${secretRef.namespace ?? ""}/${secretRef.name ?? ""}`;
        throw new TransientOperationFailure(`fetching NodePublishSecretRef ${where} failed: ${errorMessage(err)}`);
      }
    }
    let mountGroup: boolean;
    try {
      mountGroup = await calls.supportsVolumeMountGroup();
    } catch (err) {
      throw transient("mounter.SetUpAt failed to determine if the node service has VOLUME_MOUNT_GROUP capability", err);
    }
    await calls.publishVolume({
      volumeHandle: source.volumeHandle,
      readOnly: csiReadOnlyOf(this.spec),
      stagingPath,
      targetPath: this.getPath(),
      accessMode: csiAccessModeOf(this.spec),
      publishContext,
      volumeContext: publishVolumeContext(
        this.context.api,
        source.driver,
        source.volumeAttributes,
        this.pod,
        source.lifecycleMode,
      ),
      secrets,
      fsType: source.fsType,
      mountOptions: this.spec.mountOptions(),
      ...(mountGroup && args.fsGroup !== undefined ? { fsGroup: args.fsGroup } : {}),
    });
  }

  private async removeAfterFailure(): Promise<void> {
    try {
      await removeMountDir(this.context.node, this.getPath());
    } catch (err) {
      this.context.volumeHost.logger.warning(
        `${csiMessagePrefix}mounter.SetupAt failed to remove mount dir after a NodePublish() error [${this.getPath()}]: ${errorMessage(err)}`,
      );
    }
  }
}

export class CsiUnmounter implements VolumeUnmounter {
  constructor(
    private readonly context: CsiNodeContext,
    private readonly specName: string,
    private readonly podUID: string,
  ) {}

  getPath(): string {
    return csiPublishTargetPath(this.context.node.rootDir, this.podUID, this.specName);
  }

  async tearDown(): Promise<void> {
    const dir = this.getPath();
    const target = await this.loadTarget();
    if (target === undefined) return;
    const calls = driverCalls(this.context, target.driverName, "Unmounter.TearDownAt failed to get CSI client");
    try {
      await calls.unpublishVolume(target.volumeHandle, dir);
    } catch (err) {
      throw new Error(`${csiMessagePrefix}Unmounter.TearDownAt failed: ${errorMessage(err)}`, { cause: err });
    }
    try {
      await removeMountDir(this.context.node, dir);
    } catch (err) {
      throw new Error(
        `${csiMessagePrefix}Unmounter.TearDownAt failed to clean mount dir [${dir}]: ${errorMessage(err)}`,
        { cause: err },
      );
    }
  }

  /**
   * Driver and handle from `vol_data.json`. A volume directory that is gone entirely was torn down
   * already (nothing to do); one without the file cannot be torn down, as in Kubernetes.
   */
  private async loadTarget(): Promise<{ driverName: string; volumeHandle: string } | undefined> {
    const volumeDir = podVolumeDir(this.context.node.rootDir, this.podUID, csiPluginName, this.specName);
    try {
      const data = await loadVolumeData(this.context.node.host, volumeDir);
      return { driverName: data[volumeDataKey.driverName] ?? "", volumeHandle: data[volumeDataKey.volumeHandle] ?? "" };
    } catch (err) {
      if (isVolumeDataMissing(err) && !(await this.exists(volumeDir))) {
        this.context.volumeHost.logger.warning(
          `${csiMessagePrefix}Unmounter.TearDownAt skipped: volume path [${volumeDir}] does not exist`,
        );
        return undefined;
      }
      throw new Error(
        `${csiMessagePrefix}unmounter failed to load volume data file [${this.getPath()}]: ${errorMessage(err)}`,
        { cause: err },
      );
    }
  }

  private async exists(path: string): Promise<boolean> {
    try {
      await this.context.node.host.lstat(path);
      return true;
    } catch (err) {
      if (isHostError(err, "ENOENT")) return false;
      throw err;
    }
  }
}
