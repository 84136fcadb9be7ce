/**
 * The rbd attacher and detacher. RBD has no controller-side attach: the attach/detach controller
 * only records the attachment (Attach returns no device, Detach does nothing, every volume counts as
 * attached), and the node does the real work — WaitForAttach maps the image (rbd-attach-disk.ts),
 * MountDevice formats if empty and mounts it once per node, and UnmountDevice unmounts and unmaps it.
 */

import { posix } from "node:path";
import type { Pod } from "kubernetes-types/core/v1.js";
import { pathExists } from "../../../host/mount/mount-points.ts";
import type { Attacher, Detacher, DeviceMounterArgs } from "../../plugin.ts";
import type { VolumeSpec } from "../../spec.ts";
import type { NodeVolumeContext, VolumeHost } from "../../volume-host.ts";
import { formatAndMountDevice } from "../device-mount.ts";
import { attachRbdDisk } from "./rbd-attach-disk.ts";
import { rbdMappedDevice, rbdUnmap } from "./rbd-cli.ts";
import { rbdKey } from "./rbd-secret.ts";
import { parseRbdVolumeId, rbdGlobalMountDir, rbdVolumeInfo } from "./rbd-source.ts";

export class RbdAttacher implements Attacher, Detacher {
  constructor(
    private readonly host: VolumeHost,
    private readonly node: () => NodeVolumeContext,
  ) {}

  /** Nothing happens in the controller: mapping needs the node (kube-controller-manager has no `rbd`). */
  async attach(): Promise<string> {
    return "";
  }

  /** Whether an image is mapped can only be seen on the node, so every volume counts as attached. */
  async volumesAreAttached(specs: readonly VolumeSpec[]): Promise<Map<string, boolean>> {
    return new Map(specs.map((spec) => [spec.name(), true]));
  }

  async waitForAttach(spec: VolumeSpec, _devicePath: string, pod: Pod): Promise<string> {
    const info = rbdVolumeInfo(spec, pod.metadata?.namespace ?? "default");
    const key = await rbdKey(this.host.api, info);
    return attachRbdDisk(this.host, this.node(), info, key);
  }

  async getDeviceMountPath(spec: VolumeSpec): Promise<string> {
    const info = rbdVolumeInfo(spec);
    return rbdGlobalMountDir(this.node().rootDir, info.pool, info.image);
  }

  async mountDevice(
    spec: VolumeSpec,
    devicePath: string,
    deviceMountPath: string,
    _args: DeviceMounterArgs,
  ): Promise<void> {
    const node = this.node();
    const { fsType, readOnly } = rbdVolumeInfo(spec);
    await formatAndMountDevice(node, this.host.logger, {
      devicePath,
      deviceMountPath,
      fsType,
      spec,
      readOnly,
      failureLabel: "rbd",
    });
  }

  /** Unmounts the per-node mount, unmaps the image (dropping this node's watch), removes the directory. */
  async unmountDevice(deviceMountPath: string): Promise<void> {
    const node = this.node();
    const existence = await pathExists(node.host, deviceMountPath);
    if (existence.error !== undefined) throw new Error(`error checking if path exists: ${existence.error.message}`);
    if (!existence.exists) {
      this.host.logger.warning(`Warning: Unmount skipped because path does not exist: ${deviceMountPath}`);
      return;
    }
    if (!(await node.mounter.isLikelyNotMountPoint(deviceMountPath))) await node.mounter.unmount(deviceMountPath);
    const image = parseRbdVolumeId(posix.basename(deviceMountPath));
    const device = image === undefined ? undefined : await rbdMappedDevice(node.host, image.pool, image.image);
    if (device === undefined) {
      this.host.logger.warning(`rbd: can't found devicePath for ${deviceMountPath}. Device is already unmounted`);
    } else {
      await rbdUnmap(node.host, device);
    }
    await node.host.rmdir(deviceMountPath);
  }

  /** Nothing to do in the controller: UnmountDevice already unmapped the image on the node. */
  async detach(): Promise<void> {
    return;
  }
}
