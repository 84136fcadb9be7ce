/**
 * kvol's simulated attachable disk (`kvol.io/sim-disk`), the in-tree-style counterpart of a cloud
 * disk: the attach/detach controller attaches it to a node through the disk provider, the kubelet
 * waits for the block device, formats and mounts it once per node, and pods bind-mount that mount.
 * Raw block mode maps the device. See sim-disk-source.ts for how a PV names a disk.
 */

import type { Pod } from "kubernetes-types/core/v1.js";
import { podVolumeDeviceDir } from "../../paths.ts";
import type { BlockVolumeMapper, BlockVolumePlugin, BlockVolumeUnmapper, ReconstructedVolume } from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import type { NodeVolumeContext } from "../../volume-host.ts";
import { AttachableDiskPlugin, type DiskPodMount } from "../attachable-disk-plugin.ts";
import { globalMapVolumeIdFromPod } from "../global-map-path-from-pod.ts";
import { podUIDOf } from "../pod-uid.ts";
import { SimDiskAttacher, type SimDiskProvider } from "./sim-disk-attacher.ts";
import {
  isSimDiskSpec,
  simDiskDriverName,
  simDiskGlobalMapPath,
  simDiskGlobalMountDir,
  simDiskIdOption,
  simDiskInfo,
  simDiskPluginName,
} from "./sim-disk-source.ts";

interface SimDiskPluginOptions {
  /** The provider to attach through; needed where attach/detach runs (the controller). */
  provider?: SimDiskProvider;
}

/** The attached device goes to pods as it is; attach and detach happen in the controller. */
class SimDiskBlockVolume implements BlockVolumeMapper, BlockVolumeUnmapper {
  constructor(
    private readonly node: NodeVolumeContext,
    private readonly specName: string,
    private readonly podUID: string,
  ) {}

  async getGlobalMapPath(spec: VolumeSpec): Promise<string> {
    return simDiskGlobalMapPath(this.node.rootDir, simDiskInfo(spec).diskId);
  }

  getPodDeviceMapPath(): { dir: string; linkName: string } {
    return { dir: podVolumeDeviceDir(this.node.rootDir, this.podUID, simDiskPluginName), linkName: this.specName };
  }
}

export class SimDiskPlugin extends AttachableDiskPlugin implements BlockVolumePlugin {
  readonly name = simDiskPluginName;
  protected readonly shortName = "sim-disk";
  private readonly provider: SimDiskProvider | undefined;

  constructor(options: SimDiskPluginOptions = {}) {
    super();
    this.provider = options.provider;
  }

  canSupport(spec: VolumeSpec): boolean {
    return isSimDiskSpec(spec);
  }

  /** The disk id: one disk is one volume, whichever PV names it. */
  getVolumeName(spec: VolumeSpec): string {
    return simDiskInfo(spec).diskId;
  }

  newBlockVolumeMapper(spec: VolumeSpec, pod: Pod): BlockVolumeMapper {
    simDiskInfo(spec);
    return new SimDiskBlockVolume(this.node("sim-disk MapVolume"), spec.name(), podUIDOf(pod));
  }

  newBlockVolumeUnmapper(specName: string, podUID: string): BlockVolumeUnmapper {
    return new SimDiskBlockVolume(this.node("sim-disk UnmapVolume"), specName, podUID);
  }

  /** The disk id is the last element of the per-node mount the pod directory is bound to. */
  async constructVolumeSpec(volumeName: string, mountPath: string): Promise<ReconstructedVolume> {
    const node = this.node("sim-disk reconstruction");
    const prefix = `${simDiskGlobalMountDir(node.rootDir, "")}/`;
    const ref = (await node.mounter.getMountRefs(mountPath)).find((candidate) => candidate.startsWith(prefix));
    const diskId = ref === undefined ? volumeName : ref.slice(prefix.length);
    return { spec: this.specFor(volumeName, diskId, "Filesystem") };
  }

  /**
   * The disk id is the global map directory holding this pod's bind-mounted device file
   * (`volumeDevices/<disk id>/<pod uid>`, Kubernetes' FindGlobalMapPathUUIDFromPod); with several,
   * the one whose device is the pod link's target.
   */
  async constructBlockVolumeSpec(podUID: string, volumeName: string, mapPath: string): Promise<VolumeSpec> {
    const node = this.node("sim-disk block reconstruction");
    const diskId = await globalMapVolumeIdFromPod(node, simDiskPluginName, podUID, mapPath);
    return this.specFor(volumeName, diskId ?? volumeName, "Block");
  }

  protected diskAttacher(): SimDiskAttacher {
    return new SimDiskAttacher(this.host, this.provider, () => this.node("sim-disk node operation"));
  }

  protected podMountOf(spec: VolumeSpec): DiskPodMount {
    const { diskId, readOnly } = simDiskInfo(spec);
    return { readOnly, globalMountDir: (rootDir) => simDiskGlobalMountDir(rootDir, diskId) };
  }

  private specFor(name: string, diskId: string, volumeMode: "Filesystem" | "Block"): VolumeSpec {
    return VolumeSpec.fromPersistentVolume({
      metadata: { name },
      spec: { flexVolume: { driver: simDiskDriverName, options: { [simDiskIdOption]: diskId } }, volumeMode },
    });
  }
}
