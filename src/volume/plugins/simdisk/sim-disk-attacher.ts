/**
 * Attach and detach through the disk provider (controller side), and on the node: wait for the
 * disk's block device to appear, format it if empty and mount it once per node, unmount it again.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { isHostError } from "../../../host/host.ts";
import { cleanupMountPoint } from "../../../host/mount/cleanup-mount-point.ts";
import { diskDevicePath } from "../../../host/sim/world/disk-provider.ts";
import type { Attacher, Detacher, DeviceMounterArgs } from "../../plugin.ts";
import type { VolumeSpec } from "../../spec.ts";
import type { NodeVolumeContext, VolumeHost } from "../../volume-host.ts";
import { formatAndMountDevice } from "../device-mount.ts";
import { simDiskGlobalMountDir, simDiskInfo } from "./sim-disk-source.ts";

/** How often WaitForAttach looks for the device (Kubernetes' cloud disk plugins check every second). */
const simDiskDeviceCheckIntervalMs = 1_000;

/** The provider API the plugin uses; the simulated world's CloudDiskProvider is one. */
export interface SimDiskProvider {
  /** Resolves with the device path once the device exists on the node. */
  attach(diskId: string, nodeName: string, options?: { readOnly?: boolean }): Promise<string>;
  detach(diskId: string, nodeName: string): Promise<void>;
  attachedTo(nodeName: string): Array<{ disk: { id: string }; readOnly: boolean }>;
}

export class SimDiskAttacher implements Attacher, Detacher {
  constructor(
    private readonly host: VolumeHost,
    private readonly provider: SimDiskProvider | undefined,
    private readonly node: () => NodeVolumeContext,
  ) {}

  private requireProvider(what: string): SimDiskProvider {
    if (this.provider === undefined)
      throw new Error(`kvol.io/sim-disk: ${what} needs the disk provider, and none was given`);
    return this.provider;
  }

  attach(spec: VolumeSpec, nodeName: string): Promise<string> {
    const info = simDiskInfo(spec);
    return this.requireProvider("Attach").attach(info.diskId, nodeName, { readOnly: info.readOnly });
  }

  async volumesAreAttached(specs: readonly VolumeSpec[], nodeName: string): Promise<Map<string, boolean>> {
    const attached = new Set(
      this.requireProvider("VolumesAreAttached")
        .attachedTo(nodeName)
        .map((entry) => entry.disk.id),
    );
    return new Map(specs.map((spec) => [spec.name(), attached.has(simDiskInfo(spec).diskId)]));
  }

  /** Polls for the disk's device on this node until it appears or `timeoutMs` passes. */
  async waitForAttach(spec: VolumeSpec, devicePath: string, _pod: Pod, timeoutMs: number): Promise<string> {
    const { diskId } = simDiskInfo(spec);
    const path = devicePath === "" ? diskDevicePath(diskId) : devicePath;
    const deadlineMs = this.host.clock.now() + timeoutMs;
    // Bounded by the deadline: each pass sleeps a fixed interval.
    for (;;) {
      if (await this.isBlockDevice(path)) return path;
      if (this.host.clock.now() + simDiskDeviceCheckIntervalMs > deadlineMs) {
        throw new Error(`Could not find attached disk "${diskId}". Timeout waiting for mount paths to be created.`);
      }
      await this.host.clock.sleep(simDiskDeviceCheckIntervalMs);
    }
  }

  private async isBlockDevice(path: string): Promise<boolean> {
    try {
      return (await this.node().host.stat(path)).type === "blockDevice";
    } catch (err) {
      if (isHostError(err, "ENOENT")) return false;
      throw err;
    }
  }

  async getDeviceMountPath(spec: VolumeSpec): Promise<string> {
    return simDiskGlobalMountDir(this.node().rootDir, simDiskInfo(spec).diskId);
  }

  async mountDevice(
    spec: VolumeSpec,
    devicePath: string,
    deviceMountPath: string,
    _args: DeviceMounterArgs,
  ): Promise<void> {
    const node = this.node();
    const { fsType, readOnly } = simDiskInfo(spec);
    await formatAndMountDevice(node, this.host.logger, { devicePath, deviceMountPath, fsType, spec, readOnly });
  }

  unmountDevice(deviceMountPath: string): Promise<void> {
    const node = this.node();
    return cleanupMountPoint(node.host, node.mounter, deviceMountPath, false);
  }

  /** `volumeName` is the disk id (the unique name's part after the plugin name). */
  detach(volumeName: string, nodeName: string): Promise<void> {
    return this.requireProvider("Detach").detach(volumeName, nodeName);
  }
}
