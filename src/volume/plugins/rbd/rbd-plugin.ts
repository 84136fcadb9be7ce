/**
 * The in-tree rbd plugin (`kubernetes.io/rbd`, removed from Kubernetes in v1.31; kept for the
 * behaviour seed 004 depends on). Attachable and device-mountable, but the attach happens on the
 * node: WaitForAttach maps the image only when no client watches it, which keeps an image exclusive
 * to one node even for a ReadWriteMany PV. Pods bind-mount the per-node mount; raw block mode maps
 * the device.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { pluginVolumeDevicesDir } from "../../paths.ts";
import type { BlockVolumeMapper, BlockVolumePlugin, BlockVolumeUnmapper, ReconstructedVolume } from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import { AttachableDiskPlugin, type DiskPodMount } from "../attachable-disk-plugin.ts";
import { globalMapVolumeIdFromPod } from "../global-map-path-from-pod.ts";
import { podUIDOf } from "../pod-uid.ts";
import { RbdAttacher } from "./rbd-attacher.ts";
import { RbdBlockVolume } from "./rbd-block.ts";
import { isRbdSpec, parseRbdVolumeId, rbdGlobalMountDir, rbdPluginName, rbdVolumeInfo } from "./rbd-source.ts";

export class RbdPlugin extends AttachableDiskPlugin implements BlockVolumePlugin {
  readonly name = rbdPluginName;
  protected readonly shortName = "rbd";

  canSupport(spec: VolumeSpec): boolean {
    return isRbdSpec(spec);
  }

  /** `<pool>:<image>`: the same image is the same volume whichever PV names it. */
  getVolumeName(spec: VolumeSpec): string {
    const info = rbdVolumeInfo(spec);
    return `${info.pool}:${info.image}`;
  }

  newBlockVolumeMapper(spec: VolumeSpec, pod: Pod): BlockVolumeMapper {
    rbdVolumeInfo(spec);
    return new RbdBlockVolume(this.node("rbd MapVolume"), spec.name(), podUIDOf(pod));
  }

  newBlockVolumeUnmapper(specName: string, podUID: string): BlockVolumeUnmapper {
    return new RbdBlockVolume(this.node("rbd UnmapVolume"), specName, podUID);
  }

  /** Pool and image come back from the per-node mount the pod's directory is bound to. */
  async constructVolumeSpec(volumeName: string, mountPath: string): Promise<ReconstructedVolume> {
    const node = this.node("rbd reconstruction");
    const refs = await node.mounter.getMountRefs(mountPath);
    const image = refs.map((ref) => parseRbdVolumeId(ref.slice(ref.lastIndexOf("/") + 1))).find((found) => found);
    return {
      spec: VolumeSpec.fromVolume({
        name: volumeName,
        rbd: { monitors: [], pool: image?.pool ?? "", image: image?.image ?? "" },
      }),
    };
  }

  /**
   * Pool and image come back from the global map path holding this pod's device file
   * (`volumeDevices/<pool>-image-<image>/<pod uid>`): the spec name alone does not say which image.
   */
  async constructBlockVolumeSpec(podUID: string, volumeName: string, mapPath: string): Promise<VolumeSpec> {
    const node = this.node("rbd block reconstruction");
    const volumeId = await globalMapVolumeIdFromPod(node, rbdPluginName, podUID, mapPath);
    const image = volumeId === undefined ? undefined : parseRbdVolumeId(volumeId);
    if (image === undefined) {
      throw new Error(
        `rbd: cannot find the global map path of block volume "${volumeName}" for pod "${podUID}": no device of the pod is mounted under ${pluginVolumeDevicesDir(node.rootDir, rbdPluginName)}`,
      );
    }
    return VolumeSpec.fromPersistentVolume({
      metadata: { name: volumeName },
      spec: { rbd: { monitors: [], pool: image.pool, image: image.image }, volumeMode: "Block" },
    });
  }

  protected diskAttacher(): RbdAttacher {
    return new RbdAttacher(this.host, () => this.node("rbd node operation"));
  }

  protected podMountOf(spec: VolumeSpec): DiskPodMount {
    const { pool, image, readOnly } = rbdVolumeInfo(spec);
    return { readOnly, globalMountDir: (rootDir) => rbdGlobalMountDir(rootDir, pool, image) };
  }
}
