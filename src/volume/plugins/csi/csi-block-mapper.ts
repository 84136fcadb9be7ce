/**
 * Raw block CSI volumes (csi_block.go, spec §5.10). The kubelet's common mapping
 * (`block/map-block-volume.ts`) needs a device file; the driver provides it:
 *
 * - SetUpDevice: `vol_data.json` under `volumeDevices/<spec>/data/`, then NodeStageVolume to
 *   `volumeDevices/staging/<spec>` (when the driver stages) with `fs_type` `block`;
 * - MapPodDevice: NodePublishVolume to the file `volumeDevices/publish/<spec>/<pod uid>` (the
 *   kubelet creates its directory, the driver the file), which becomes the device path;
 * - UnmapPodDevice: NodeUnpublishVolume, even when the file is gone (an earlier publish may have
 *   timed out half-way);
 * - TearDownDevice: NodeUnstageVolume unless the staging path is already gone, then the publish
 *   and staging directories and `volumeDevices/<spec>` are cleaned up.
 */
import { posix } from "node:path";
import type { Pod } from "kubernetes-types/core/v1.js";
import { isHostError } from "../../../host/host.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import { isOperationFinishedError } from "../../errors.ts";
import {
  csiBlockGlobalMapPath,
  csiBlockPublishDir,
  csiBlockPublishPath,
  csiBlockStagingPath,
  csiBlockVolumeDataPath,
  csiBlockVolumeDir,
  csiPluginName,
  podVolumeDeviceDir,
} from "../../paths.ts";
import type { BlockVolumeMapper, BlockVolumeUnmapper } from "../../plugin.ts";
import type { VolumeSpec } from "../../spec.ts";
import { removeAllOneFilesystem } from "../../util/remove-all.ts";
import { podUIDOf } from "../pod-uid.ts";
import { csiBlockFsType, csiDirMode, csiMessagePrefix, persistentLifecycleMode } from "./csi-constants.ts";
import { credentialsFromSecret } from "./csi-credentials.ts";
import type { CsiNodeCalls } from "./csi-node-calls.ts";
import { attachmentNameOnNode, type CsiNodeContext, driverCalls, publishContextOf } from "./csi-node-context.ts";
import { publishVolumeContext } from "./csi-pod-info.ts";
import { csiAccessModeOf, csiPersistentSource, csiReadOnlyOf } from "./csi-source.ts";
import { loadVolumeData, saveVolumeData, volumeDataKey } from "./volume-data.ts";

function failed(what: string, err: unknown): Error {
  return new Error(`${csiMessagePrefix}${what}: ${errorMessage(err)}`, { cause: err });
}

/** The paths of one block volume (and, for a pod, its publish file). */
class CsiBlockPaths {
  constructor(
    protected readonly context: CsiNodeContext,
    protected readonly specName: string,
    protected readonly podUID: string,
  ) {}

  async getGlobalMapPath(_spec: VolumeSpec): Promise<string> {
    return csiBlockGlobalMapPath(this.context.node.rootDir, this.specName);
  }

  getPodDeviceMapPath(): { dir: string; linkName: string } {
    return { dir: podVolumeDeviceDir(this.context.node.rootDir, this.podUID, csiPluginName), linkName: this.specName };
  }

  protected stagingPath(): string {
    return csiBlockStagingPath(this.context.node.rootDir, this.specName);
  }

  protected publishPath(): string {
    return csiBlockPublishPath(this.context.node.rootDir, this.specName, this.podUID);
  }

  protected dataDir(): string {
    return posix.dirname(csiBlockVolumeDataPath(this.context.node.rootDir, this.specName));
  }
}

export class CsiBlockMapper extends CsiBlockPaths implements BlockVolumeMapper {
  constructor(
    context: CsiNodeContext,
    private readonly spec: VolumeSpec,
    private readonly pod: Pod,
  ) {
    super(context, spec.name(), podUIDOf(pod));
    csiPersistentSource(spec);
  }

  /** Records the volume, then NodeStageVolume; returns the staging path ("" when the driver does not stage). */
  async setUpDevice(): Promise<string> {
    const source = csiPersistentSource(this.spec);
    await this.writeVolumeData(source.volumeHandle, source.driver);
    const publishContext = await this.publishContext("blockMapper.SetupDevice failed to get volume attachment");
    const calls = driverCalls(this.context, source.driver, "blockMapper.SetUpDevice failed to get CSI client");
    try {
      return await this.stage(calls, publishContext);
    } catch (err) {
      if (isOperationFinishedError(err)) await this.cleanUpAfterFailure();
      throw err;
    }
  }

  /** NodePublishVolume to this pod's publish file; returns it as the device path. */
  async mapPodDevice(): Promise<string> {
    const source = csiPersistentSource(this.spec);
    const publishContext = await this.publishContext("blockMapper.MapPodDevice failed to get volume attachment");
    const calls = driverCalls(this.context, source.driver, "blockMapper.MapPodDevice failed to get CSI client");
    let secrets: Record<string, string> = {};
    if (source.nodePublishSecretRef !== undefined) {
      try {
        secrets = await credentialsFromSecret(this.context.volumeHost.api, source.nodePublishSecretRef);
      } catch (err) {
        throw failed("blockMapper.publishVolumeForBlock failed to get NodePublishSecretRef", err);
      }
    }
    const publishPath = this.publishPath();
    try {
      await this.context.node.host.mkdir(posix.dirname(publishPath), csiDirMode, { recursive: true });
    } catch (err) {
      throw failed(`blockMapper.publishVolumeForBlock failed to create dir ${posix.dirname(publishPath)}`, err);
    }
    await calls.publishVolume({
      volumeHandle: source.volumeHandle,
      readOnly: csiReadOnlyOf(this.spec),
      stagingPath: this.stagingPath(),
      targetPath: publishPath,
      accessMode: csiAccessModeOf(this.spec),
      publishContext,
      volumeContext: publishVolumeContext(
        this.context.api,
        source.driver,
        source.volumeAttributes,
        this.pod,
        persistentLifecycleMode,
      ),
      secrets,
      fsType: csiBlockFsType,
      mountOptions: [],
    });
    return publishPath;
  }

  private async writeVolumeData(volumeHandle: string, driverName: string): Promise<void> {
    const { host, nodeName } = this.context.node;
    try {
      await host.mkdir(this.dataDir(), csiDirMode, { recursive: true });
    } catch (err) {
      throw failed(`failed to create data dir ${this.dataDir()}`, err);
    }
    await saveVolumeData(host, this.dataDir(), {
      [volumeDataKey.specVolID]: this.specName,
      [volumeDataKey.volumeHandle]: volumeHandle,
      [volumeDataKey.driverName]: driverName,
      [volumeDataKey.nodeName]: nodeName,
      [volumeDataKey.attachmentID]: attachmentNameOnNode(this.context, volumeHandle, driverName),
    });
  }

  private async publishContext(what: string): Promise<Record<string, string>> {
    const source = csiPersistentSource(this.spec);
    try {
      return await publishContextOf(this.context, source.volumeHandle, source.driver);
    } catch (err) {
      const id = attachmentNameOnNode(this.context, source.volumeHandle, source.driver);
      throw failed(`${what} [id=${id}]`, err);
    }
  }

  private async stage(calls: CsiNodeCalls, publishContext: Record<string, string>): Promise<string> {
    const source = csiPersistentSource(this.spec);
    let staged: boolean;
    try {
      staged = await calls.supportsStageUnstage();
    } catch (err) {
      throw failed("blockMapper.stageVolumeForBlock failed to check STAGE_UNSTAGE_VOLUME capability", err);
    }
    if (!staged) return "";
    let secrets: Record<string, string> = {};
    if (source.nodeStageSecretRef !== undefined) {
      const ref = source.nodeStageSecretRef;
      try {
        secrets = await credentialsFromSecret(this.context.volumeHost.api, ref);
      } catch (err) {
        throw new Error(
          `failed to get NodeStageSecretRef ${ref.namespace ?? ""}/${ref.name ?? ""}: ${errorMessage(err)}`,
        );
      }
    }
    const stagingPath = this.stagingPath();
    try {
      await this.context.node.host.mkdir(stagingPath, csiDirMode, { recursive: true });
    } catch (err) {
      throw failed(`blockMapper.stageVolumeForBlock failed to create dir ${stagingPath}`, err);
    }
    await calls.stageVolume({
      volumeHandle: source.volumeHandle,
      publishContext,
      stagingPath,
      fsType: csiBlockFsType,
      accessMode: csiAccessModeOf(this.spec),
      secrets,
      volumeContext: source.volumeAttributes ?? {},
      mountOptions: [],
    });
    return stagingPath;
  }

  private async cleanUpAfterFailure(): Promise<void> {
    try {
      await cleanupOrphanDeviceFiles(this.context, this.specName);
    } catch (err) {
      this.context.volumeHost.logger.warning(
        `${csiMessagePrefix}failed to clean up block volume directory: ${errorMessage(err)}`,
      );
    }
  }
}

export class CsiBlockUnmapper extends CsiBlockPaths implements BlockVolumeUnmapper {
  /** NodeUnpublishVolume of this pod's publish file. */
  async unmapPodDevice(): Promise<void> {
    const target = await this.loadTarget();
    const calls = driverCalls(this.context, target.driverName, "blockMapper.UnmapPodDevice failed to get CSI client");
    try {
      await calls.unpublishVolume(target.volumeHandle, this.publishPath());
    } catch (err) {
      throw failed("blockMapper.unpublishVolumeForBlock failed", err);
    }
  }

  /** NodeUnstageVolume (unless the staging path is gone already), then the volume's directories. */
  async tearDownDevice(_globalMapPath: string, _devicePath: string): Promise<void> {
    const target = await this.loadTarget();
    const calls = driverCalls(this.context, target.driverName, "blockMapper.TearDownDevice failed to get CSI client");
    if (await this.stagingPathExists()) await this.unstage(calls, target.volumeHandle);
    try {
      await cleanupOrphanDeviceFiles(this.context, this.specName);
    } catch (err) {
      this.context.volumeHost.logger.info(`Failed to clean up block volume directory ${errorMessage(err)}`);
    }
  }

  private async stagingPathExists(): Promise<boolean> {
    try {
      await this.context.node.host.stat(this.stagingPath());
      return true;
    } catch (err) {
      if (isHostError(err, "ENOENT")) return false;
      throw err;
    }
  }

  private async unstage(calls: CsiNodeCalls, volumeHandle: string): Promise<void> {
    let staged: boolean;
    try {
      staged = await calls.supportsStageUnstage();
    } catch (err) {
      throw failed("blockMapper.unstageVolumeForBlock failed to check STAGE_UNSTAGE_VOLUME capability", err);
    }
    if (!staged) return;
    try {
      await calls.unstageVolume(volumeHandle, this.stagingPath());
    } catch (err) {
      throw failed("blockMapper.unstageVolumeForBlock failed", err);
    }
    try {
      await removeAllOneFilesystem(this.context.node.host, this.stagingPath());
    } catch (err) {
      throw failed(
        `blockMapper.unstageVolumeForBlock failed to remove staging path after NodeUnstageVolume() error [${this.stagingPath()}]`,
        err,
      );
    }
  }

  private async loadTarget(): Promise<{ driverName: string; volumeHandle: string }> {
    try {
      const data = await loadVolumeData(this.context.node.host, this.dataDir());
      return { driverName: data[volumeDataKey.driverName] ?? "", volumeHandle: data[volumeDataKey.volumeHandle] ?? "" };
    } catch (err) {
      throw failed(`unmapper failed to load volume data file [${this.dataDir()}]`, err);
    }
  }
}

/**
 * What NodePublish and NodeStage left once no pod uses the volume: the (empty) publish directory,
 * the staging path and `volumeDevices/<spec>` with its `data/vol_data.json` and empty `dev/`.
 */
async function cleanupOrphanDeviceFiles(context: CsiNodeContext, specName: string): Promise<void> {
  const { host, rootDir } = context.node;
  for (const dir of [csiBlockPublishDir(rootDir, specName), csiBlockStagingPath(rootDir, specName)]) {
    try {
      await host.rmdir(dir);
    } catch (err) {
      if (!isHostError(err, "ENOENT")) throw failed(`failed to remove directory [${dir}]`, err);
    }
  }
  await removeAllOneFilesystem(host, csiBlockVolumeDir(rootDir, specName));
}
