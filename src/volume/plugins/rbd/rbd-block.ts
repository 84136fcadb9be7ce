/**
 * Raw block mode for rbd: the image mapped by WaitForAttach is mapped into pods through the common
 * block path (map-block-volume.ts); once no pod maps it, TearDownDevice unmaps the image.
 */
import { posix } from "node:path";
import { errorMessage } from "../../../runtime/error-message.ts";
import { podVolumeDeviceDir } from "../../paths.ts";
import type { BlockVolumeMapper, BlockVolumeUnmapper } from "../../plugin.ts";
import type { VolumeSpec } from "../../spec.ts";
import type { NodeVolumeContext } from "../../volume-host.ts";
import { rbdMappedDevice, rbdUnmap } from "./rbd-cli.ts";
import { parseRbdVolumeId, rbdGlobalMapPath, rbdPluginName, rbdVolumeInfo } from "./rbd-source.ts";

export class RbdBlockVolume implements BlockVolumeMapper, BlockVolumeUnmapper {
  constructor(
    private readonly node: NodeVolumeContext,
    private readonly specName: string,
    private readonly podUID: string,
  ) {}

  async getGlobalMapPath(spec: VolumeSpec): Promise<string> {
    const info = rbdVolumeInfo(spec);
    return rbdGlobalMapPath(this.node.rootDir, info.pool, info.image);
  }

  getPodDeviceMapPath(): { dir: string; linkName: string } {
    return { dir: podVolumeDeviceDir(this.node.rootDir, this.podUID, rbdPluginName), linkName: this.specName };
  }

  /** Unmaps the image named by the global map path; an image no longer mapped is done already. */
  async tearDownDevice(globalMapPath: string): Promise<void> {
    const image = parseRbdVolumeId(posix.basename(globalMapPath));
    if (image === undefined) throw new Error(`rbd: cannot tell pool and image from map path ${globalMapPath}`);
    const device = await rbdMappedDevice(this.node.host, image.pool, image.image);
    if (device === undefined) return;
    try {
      await rbdUnmap(this.node.host, device);
    } catch (err) {
      throw new Error(`rbd: failed to detach disk: ${globalMapPath}\nError: ${errorMessage(err)}`, {
        cause: err,
      });
    }
  }
}
