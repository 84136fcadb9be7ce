/**
 * Raw block mode for local PVs: the PV's device path is mapped into pods as it is (MapPodDevice
 * returns it); there is no node-level setup or teardown of the device.
 */
import { podVolumeDeviceDir } from "../../paths.ts";
import type { BlockVolumeMapper, BlockVolumeUnmapper } from "../../plugin.ts";
import type { NodeVolumeContext } from "../../volume-host.ts";
import { localGlobalMapPath, localPluginName } from "./local-source.ts";

export class LocalBlockVolume implements BlockVolumeMapper, BlockVolumeUnmapper {
  constructor(
    private readonly node: NodeVolumeContext,
    private readonly specName: string,
    private readonly podUID: string,
    /** The device path from the PV (empty for an unmapper). */
    private readonly devicePath: string,
  ) {}

  async getGlobalMapPath(): Promise<string> {
    return localGlobalMapPath(this.node.rootDir, this.specName);
  }

  getPodDeviceMapPath(): { dir: string; linkName: string } {
    return { dir: podVolumeDeviceDir(this.node.rootDir, this.podUID, localPluginName), linkName: this.specName };
  }

  async setUpDevice(): Promise<string> {
    return "";
  }

  async mapPodDevice(): Promise<string> {
    return this.devicePath;
  }

  async tearDownDevice(): Promise<void> {
    return;
  }
}
