/**
 * MountDevice for local PVs: a block device is formatted if it holds nothing and mounted at the
 * node's global path; a directory needs nothing. UnmountDevice only touches paths below the
 * plugin's mounts directory, since a directory PV's "device mount path" is the user's directory.
 */
import { cleanupMountPoint } from "../../../host/mount/cleanup-mount-point.ts";
import { isPathWithin } from "../../../host/mount/mount-points.ts";
import type { DeviceMounter, DeviceMounterArgs, DeviceUnmounter } from "../../plugin.ts";
import type { VolumeSpec } from "../../spec.ts";
import type { NodeVolumeContext, VolumeLogger } from "../../volume-host.ts";
import { formatAndMountDevice } from "../device-mount.ts";
import {
  localBlockDeviceMountsDir,
  localGlobalPath,
  localPathKind,
  localSource,
  requireLocalPath,
} from "./local-source.ts";

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
    await formatAndMountDevice(this.node, this.logger, {
      devicePath: path,
      deviceMountPath,
      fsType: localSource(spec)?.fsType ?? "",
      spec,
      readOnly: spec.readOnly,
      failureLabel: "local",
    });
  }

  async unmountDevice(deviceMountPath: string): Promise<void> {
    if (!isPathWithin(deviceMountPath, localBlockDeviceMountsDir(this.node.rootDir))) return;
    await cleanupMountPoint(this.node.host, this.node.mounter, deviceMountPath, false);
  }
}
