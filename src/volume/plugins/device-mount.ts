/**
 * MountDevice's common body for plugins that mount a block device once per node at a global path
 * (rbd, sim-disk, local block PVs): nothing to do when the path is a mount point already; otherwise
 * create it, format the device if it holds nothing and mount it. A failed mount removes the
 * directory again, so a retry starts from the same state.
 */
import { isHostError } from "../../host/host.ts";
import { SafeFormatAndMount } from "../../host/mount/safe-format-and-mount.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { VolumeSpec } from "../spec.ts";
import { mountOptionsFromSpec } from "../util/mount-options.ts";
import type { NodeVolumeContext, VolumeLogger } from "../volume-host.ts";

/** Global (per-node) mount directories: private to the kubelet and the pod's group. */
export const globalMountDirMode = 0o750;

interface DeviceMountRequest {
  devicePath: string;
  deviceMountPath: string;
  /** Empty for the default filesystem (ext4). */
  fsType: string;
  /** The spec whose PV mount options apply; `ro` is added for a read-only volume. */
  spec: VolumeSpec;
  readOnly: boolean;
  /**
   * rbd and local report a failed mount as `<label>: failed to mount device ...` and put the label
   * on their cleanup warning; without one (sim-disk, like the cloud disk plugins) the mount error
   * is passed on as it is.
   */
  failureLabel?: string;
}

/** Formats (if empty) and mounts the device at `deviceMountPath` unless it is mounted there already. */
export async function formatAndMountDevice(
  node: NodeVolumeContext,
  logger: VolumeLogger,
  request: DeviceMountRequest,
): Promise<void> {
  const { host, mounter } = node;
  const { devicePath, deviceMountPath, fsType, failureLabel } = request;
  try {
    if (!(await mounter.isLikelyNotMountPoint(deviceMountPath))) return;
  } catch (err) {
    if (!isHostError(err, "ENOENT")) throw err;
    await host.mkdir(deviceMountPath, globalMountDirMode, { recursive: true });
  }
  const options = mountOptionsFromSpec(request.spec, ...(request.readOnly ? ["ro"] : []));
  try {
    await new SafeFormatAndMount(mounter).formatAndMount(devicePath, deviceMountPath, fsType, options);
  } catch (err) {
    await removeIgnoringFailure(node, logger, deviceMountPath, failureLabel);
    if (failureLabel === undefined) throw err;
    throw new Error(
      `${failureLabel}: failed to mount device ${devicePath} at ${deviceMountPath} (fstype: ${fsType}), error ${errorMessage(err)}`,
      { cause: err },
    );
  }
}

async function removeIgnoringFailure(
  node: NodeVolumeContext,
  logger: VolumeLogger,
  path: string,
  label: string | undefined,
): Promise<void> {
  try {
    await node.host.rmdir(path);
  } catch (err) {
    logger.warning(`${label === undefined ? "" : `${label}: `}failed to remove ${path}: ${errorMessage(err)}`);
  }
}
