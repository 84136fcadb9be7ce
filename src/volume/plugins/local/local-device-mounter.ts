/**
 * MountDevice for local PVs: a block device is formatted if it holds nothing and mounted at the
 * node's global path; a directory needs nothing. UnmountDevice only touches paths below the
 * plugin's mounts directory, since a directory PV's "device mount path" is the user's directory.
 */
import { isHostError } from "../../../host/host.ts";
import { cleanupMountPoint } from "../../../host/mount/cleanup-mount-point.ts";
import { isPathWithin } from "../../../host/mount/mount-points.ts";
import { SafeFormatAndMount } from "../../../host/mount/safe-format-and-mount.ts";
import type { DeviceMounter, DeviceMounterArgs, DeviceUnmounter } from "../../plugin.ts";
import type { VolumeSpec } from "../../spec.ts";
import { mountOptionsFromSpec } from "../../util/mount-options.ts";
import type { NodeVolumeContext, VolumeLogger } from "../../volume-host.ts";
import {
  localBlockDeviceMountsDir,
  localGlobalPath,
  localPathKind,
  localSource,
  requireLocalPath,
} from "./local-source.ts";

const globalMountDirMode = 0o750;

export class LocalDeviceMounter implements DeviceMounter, DeviceUnmounter {
  constructor(
    private readonly node: NodeVolumeContext,
    private readonly logger: VolumeLogger,
  ) {}

  getDeviceMountPath(spec: VolumeSpec): Promise<string> {
    return localGlobalPath(this.node.host, this.node.rootDir, spec);
  }

  async mountDevice(
    spec: VolumeSpec,
    _devicePath: string,
    deviceMountPath: string,
    _args: DeviceMounterArgs,
  ): Promise<void> {
    const path = requireLocalPath(spec);
    // The local plugin attaches nothing: the device is the path in the PV.
    if ((await localPathKind(this.node.host, path)) === "directory") return;
    await this.mountBlockDevice(spec, path, deviceMountPath);
  }

  private async mountBlockDevice(spec: VolumeSpec, devicePath: string, deviceMountPath: string): Promise<void> {
    const { host, mounter } = this.node;
    try {
      if (!(await mounter.isLikelyNotMountPoint(deviceMountPath))) return;
    } catch (err) {
      if (!isHostError(err, "ENOENT")) throw err;
      await host.mkdir(deviceMountPath, globalMountDirMode, { recursive: true });
    }
    const fsType = localSource(spec)?.fsType ?? "";
    const options = mountOptionsFromSpec(spec, ...(spec.readOnly ? ["ro"] : []));
    try {
      await new SafeFormatAndMount(mounter).formatAndMount(devicePath, deviceMountPath, fsType, options);
    } catch (err) {
      await this.removeIgnoringFailure(deviceMountPath);
      throw new Error(
        `local: failed to mount device ${devicePath} at ${deviceMountPath} (fstype: ${fsType}), error ${err instanceof Error ? err.message : err}`,
        { cause: err },
      );
    }
  }

  private async removeIgnoringFailure(path: string): Promise<void> {
    try {
      await this.node.host.rmdir(path);
    } catch (err) {
      this.logger.warning(`local: failed to remove ${path}: ${err instanceof Error ? err.message : err}`);
    }
  }

  async unmountDevice(deviceMountPath: string): Promise<void> {
    if (!isPathWithin(deviceMountPath, localBlockDeviceMountsDir(this.node.rootDir))) return;
    await cleanupMountPoint(this.node.host, this.node.mounter, deviceMountPath, false);
  }
}
