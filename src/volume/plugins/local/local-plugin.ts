/**
 * The local plugin (`kubernetes.io/local-volume`): a PV that is a directory or a block device of one
 * node, pinned there by its node affinity. Device-mountable but not attachable: a block device is
 * formatted if empty and mounted once per node, a directory is used in place; each pod bind-mounts
 * it. Raw block mode maps the device itself.
 */

import { posix } from "node:path";
import type { Pod } from "kubernetes-types/core/v1.js";
import { isPathWithin } from "../../../host/mount/mount-points.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import { podVolumeDir } from "../../paths.ts";
import type {
  BlockVolumeMapper,
  BlockVolumePlugin,
  BlockVolumeUnmapper,
  DeviceMountableVolumePlugin,
  DeviceMounter,
  DeviceUnmounter,
  ReconstructedVolume,
  VolumeMounter,
  VolumeUnmounter,
} from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import type { NodeVolumeContext } from "../../volume-host.ts";
import { PodBindMounter, type PodBindSource, podBindUnmounter } from "../bind-mount.ts";
import { PluginBase } from "../plugin-base.ts";
import { podUIDOf } from "../pod-uid.ts";
import { LocalBlockVolume } from "./local-block.ts";
import { LocalDeviceMounter } from "./local-device-mounter.ts";
import {
  localBlockDeviceMountsDir,
  localGlobalPath,
  localPluginName,
  localSource,
  requireLocalPath,
} from "./local-source.ts";

/** The directory pods bind-mount, refusing a PV path that climbs out with `..`. */
async function localBindPath(node: NodeVolumeContext, spec: VolumeSpec): Promise<string> {
  const path = requireLocalPath(spec);
  if (path.split("/").includes("..")) throw new Error(`invalid path: ${path} must not contain '..'`);
  return localGlobalPath(node.host, node.rootDir, spec);
}

/** The PV's directory (or the block device's per-node mount) is bound as it is; nothing needs to be mounted first. */
const localBindSource: PodBindSource = {
  requireGlobalMount: false,
  readOnly: (spec) => spec.readOnly,
  globalPath: localBindPath,
};

export class LocalPlugin extends PluginBase implements DeviceMountableVolumePlugin, BlockVolumePlugin {
  readonly name = localPluginName;

  canSupport(spec: VolumeSpec): boolean {
    return localSource(spec) !== undefined;
  }

  requiresRemount(): boolean {
    return false;
  }

  supportsMountOption(): boolean {
    return true;
  }

  getVolumeName(spec: VolumeSpec): string {
    return spec.name();
  }

  canDeviceMount(): boolean {
    return true;
  }

  /** SetUp bind-mounts the PV's directory, or the block device's per-node mount, into the pod. */
  newMounter(spec: VolumeSpec, pod: Pod): VolumeMounter {
    requireLocalPath(spec);
    const node = this.node("local volume SetUp");
    return new PodBindMounter(
      node,
      this.host.logger,
      this.podDir(node, podUIDOf(pod), spec.name()),
      spec,
      localBindSource,
    );
  }

  /** The mount-table check: a bind mount of a directory on the same disk has the same device id. */
  newUnmounter(specName: string, podUID: string): VolumeUnmounter {
    const node = this.node("local volume TearDown");
    return podBindUnmounter(node, this.podDir(node, podUID, specName), true);
  }

  newDeviceMounter(): DeviceMounter {
    return new LocalDeviceMounter(this.node("local MountDevice"), this.host.logger);
  }

  newDeviceUnmounter(): DeviceUnmounter {
    return new LocalDeviceMounter(this.node("local UnmountDevice"), this.host.logger);
  }

  getDeviceMountRefs(deviceMountPath: string): Promise<string[]> {
    return this.node("local device mount refs").mounter.getMountRefs(deviceMountPath);
  }

  newBlockVolumeMapper(spec: VolumeSpec, pod: Pod): BlockVolumeMapper {
    const path = requireLocalPath(spec);
    return new LocalBlockVolume(this.node("local MapVolume"), spec.name(), podUIDOf(pod), path);
  }

  newBlockVolumeUnmapper(specName: string, podUID: string): BlockVolumeUnmapper {
    return new LocalBlockVolume(this.node("local UnmapVolume"), specName, podUID, "");
  }

  /**
   * A filesystem volume whose pod mount comes from the plugin's global mounts is a block device PV:
   * the device is recovered from the mount table; a directory PV needs no path to be cleaned up.
   */
  async constructVolumeSpec(volumeName: string, mountPath: string): Promise<ReconstructedVolume> {
    const node = this.node("local reconstruction");
    const refs = await node.mounter.getMountRefs(mountPath);
    const base = localBlockDeviceMountsDir(node.rootDir);
    const globalRef = refs.find((ref) => isPathWithin(ref, base));
    const mounts = globalRef === undefined ? [] : await node.host.mountInfo();
    const devicePath = mounts.find((mount) => mount.mountPoint === globalRef)?.source ?? "";
    return { spec: this.reconstructedSpec(volumeName, devicePath, "Filesystem") };
  }

  async constructBlockVolumeSpec(_podUID: string, volumeName: string, mapPath: string): Promise<VolumeSpec> {
    const node = this.node("local block reconstruction");
    let devicePath = "";
    try {
      devicePath = await node.host.readlink(posix.join(mapPath, volumeName));
    } catch (err) {
      this.host.logger.warning(`local: cannot read device link under ${mapPath}: ${errorMessage(err)}`);
    }
    return this.reconstructedSpec(volumeName, devicePath, "Block");
  }

  private reconstructedSpec(name: string, path: string, volumeMode: "Filesystem" | "Block"): VolumeSpec {
    return VolumeSpec.fromPersistentVolume({ metadata: { name }, spec: { local: { path }, volumeMode } });
  }

  private podDir(node: NodeVolumeContext, podUID: string, specName: string): string {
    return podVolumeDir(node.rootDir, podUID, this.name, specName);
  }
}
