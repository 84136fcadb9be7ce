/**
 * MountDevice and UnmountDevice of the kubelet CSI plugin (csi_attacher.go, spec §5.9): staging a
 * persistent volume once per node.
 *
 * MountDevice: look the driver up (unregistered ⇒ transient), ask for STAGE_UNSTAGE_VOLUME, read
 * the publish context from the VolumeAttachment and the node-stage secret (both transient when they
 * fail), create `…/<sha256(handle)>/globalmount` (0750) with `vol_data.json` beside it, then
 * NodeStageVolume — or stop there for drivers that do not stage (the metadata stays for
 * UnmountDevice). A final error removes the directory again; an uncertain one keeps it, so
 * UnmountDevice will still call NodeUnstageVolume.
 *
 * UnmountDevice: `vol_data.json` names driver and handle (no file ⇒ nothing was staged here);
 * NodeUnstageVolume when the driver stages; then the directory, the file and their parent go.
 */
import { posix } from "node:path";
import { errorMessage } from "../../../runtime/error-message.ts";
import { goQuote } from "../../../runtime/go-quote.ts";
import { isOperationFinishedError, TransientOperationFailure } from "../../errors.ts";
import { csiLegacyStagingPath, csiStagingPath } from "../../paths.ts";
import type { VolumeSpec } from "../../spec.ts";
import { csiDirMode, csiMessagePrefix } from "./csi-constants.ts";
import { credentialsFromSecret } from "./csi-credentials.ts";
import { type CsiNodeContext, driverCalls, publishContextOf } from "./csi-node-context.ts";
import { csiAccessModeOf, csiPersistentSource } from "./csi-source.ts";
import { removeMountDir } from "./remove-mount-dir.ts";
import { isVolumeDataMissing, loadVolumeData, saveVolumeData, volumeDataKey } from "./volume-data.ts";

/** `plugins/kubernetes.io/csi/<driver>/<sha256(handle)>/globalmount` (or the older per-PV layout). */
export function csiDeviceMountPath(context: CsiNodeContext, spec: VolumeSpec): string {
  const source = csiPersistentSource(spec);
  if (source.driver === "") throw new Error("makeDeviceMountPath failed, csi source driver name is empty");
  if (source.volumeHandle === "") {
    throw new Error("makeDeviceMountPath failed, CSIPersistentVolumeSource volume handle is empty");
  }
  const { rootDir } = context.node;
  return context.legacyStagingPath
    ? csiLegacyStagingPath(rootDir, spec.name())
    : csiStagingPath(rootDir, source.driver, source.volumeHandle);
}

export async function csiMountDevice(
  context: CsiNodeContext,
  spec: VolumeSpec,
  deviceMountPath: string,
): Promise<void> {
  if (deviceMountPath === "")
    throw new Error(`${csiMessagePrefix}attacher.MountDevice failed, deviceMountPath is empty`);
  const source = csiPersistentSource(spec);
  const calls = driverCalls(context, source.driver, "attacher.MountDevice failed to create newCsiDriverClient");
  const staged = await calls.supportsStageUnstage();
  let publishContext: Record<string, string>;
  try {
    publishContext = await publishContextOf(context, source.volumeHandle, source.driver);
  } catch (err) {
    throw new TransientOperationFailure(errorMessage(err), { cause: err });
  }
  let secrets: Record<string, string> = {};
  const secretRef = source.nodeStageSecretRef;
  if (secretRef !== undefined && staged) {
    try {
      secrets = await credentialsFromSecret(context.volumeHost.api, secretRef);
    } catch (err) {
      const where = `${secretRef.namespace ?? ""}/${secretRef.name ?? ""}`;
      throw new TransientOperationFailure(`fetching NodeStageSecretRef ${where} failed: ${errorMessage(err)}`);
    }
  }
  await createStagingDir(context, deviceMountPath, source.volumeHandle, source.driver);
  if (!staged) {
    context.volumeHost.logger.info(
      `${csiMessagePrefix}attacher.MountDevice STAGE_UNSTAGE_VOLUME capability not set. Skipping MountDevice...`,
    );
    return;
  }
  try {
    await calls.stageVolume({
      volumeHandle: source.volumeHandle,
      publishContext,
      stagingPath: deviceMountPath,
      fsType: source.fsType ?? "",
      accessMode: csiAccessModeOf(spec),
      secrets,
      volumeContext: source.volumeAttributes ?? {},
      mountOptions: spec.mountOptions(),
    });
  } catch (err) {
    if (isOperationFinishedError(err)) await removeAfterFailure(context, deviceMountPath);
    throw err;
  }
}

/** globalmount (0750) and `vol_data.json` in its parent; a failure to write the file undoes the directory. */
async function createStagingDir(
  context: CsiNodeContext,
  deviceMountPath: string,
  handle: string,
  driver: string,
): Promise<void> {
  const { host } = context.node;
  try {
    await host.mkdir(deviceMountPath, csiDirMode, { recursive: true });
  } catch (err) {
    throw new Error(
      `${csiMessagePrefix}attacher.MountDevice failed to create dir ${goQuote(deviceMountPath)}:  ${errorMessage(err)}`,
    );
  }
  try {
    await saveVolumeData(host, posix.dirname(deviceMountPath), {
      [volumeDataKey.volumeHandle]: handle,
      [volumeDataKey.driverName]: driver,
    });
  } catch (err) {
    await removeAfterFailure(context, deviceMountPath);
    throw new Error(`${csiMessagePrefix}failed to save volume info data: ${errorMessage(err)}`, { cause: err });
  }
}

/** The clean-up after a final failure only logs its own failure: the original error is what matters. */
async function removeAfterFailure(context: CsiNodeContext, mountPath: string): Promise<void> {
  try {
    await removeMountDir(context.node, mountPath);
  } catch (err) {
    context.volumeHost.logger.warning(
      `${csiMessagePrefix}failed to remove mount dir after error [${mountPath}]: ${errorMessage(err)}`,
    );
  }
}

export async function csiUnmountDevice(context: CsiNodeContext, deviceMountPath: string): Promise<void> {
  const dataDir = posix.dirname(deviceMountPath);
  let driverName: string;
  let volumeHandle: string;
  try {
    const data = await loadVolumeData(context.node.host, dataDir);
    driverName = data[volumeDataKey.driverName] ?? "";
    volumeHandle = data[volumeDataKey.volumeHandle] ?? "";
  } catch (err) {
    if (!isVolumeDataMissing(err)) throw err;
    context.volumeHost.logger.info(
      `${csiMessagePrefix}attacher.UnmountDevice skipped because volume data file [${dataDir}] does not exist`,
    );
    return;
  }
  const calls = driverCalls(context, driverName, "attacher.UnmountDevice failed to create newCsiDriverClient");
  let staged: boolean;
  try {
    staged = await calls.supportsStageUnstage();
  } catch (err) {
    throw new Error(
      `${csiMessagePrefix}attacher.UnmountDevice failed to check whether STAGE_UNSTAGE_VOLUME set: ${errorMessage(err)}`,
    );
  }
  if (staged) {
    try {
      await calls.unstageVolume(volumeHandle, deviceMountPath);
    } catch (err) {
      throw new Error(`${csiMessagePrefix}attacher.UnmountDevice failed: ${errorMessage(err)}`, { cause: err });
    }
  }
  try {
    await removeMountDir(context.node, deviceMountPath);
  } catch (err) {
    throw new Error(`${csiMessagePrefix}failed to clean up global mount ${dataDir}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}
