/**
 * The in-tree rbd plugin (`kubernetes.io/rbd`, removed from Kubernetes in v1.31; kept for the
 * behaviour seed 004 depends on). Attachable and device-mountable, but the attach happens on the
 * node: WaitForAttach maps the image only when no client watches it, which keeps an image exclusive
 * to one node even for a ReadWriteMany PV. Pods bind-mount the per-node mount; raw block mode maps
 * the device.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { podVolumeDir } from "../../paths.ts";
import type {
  AttachableVolumePlugin,
  Attacher,
  BlockVolumeMapper,
  BlockVolumePlugin,
  BlockVolumeUnmapper,
  Detacher,
  DeviceMounter,
  DeviceUnmounter,
  MounterArgs,
  ReconstructedVolume,
  VolumeAttributes,
  VolumeMounter,
  VolumeUnmounter,
} from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import { mountOptionsFromSpec } from "../../util/mount-options.ts";
import type { NodeVolumeContext } from "../../volume-host.ts";
import { bindMountIntoPod, tearDownPodMount } from "../bind-mount.ts";
import { PluginBase } from "../plugin-base.ts";
import { podUIDOf } from "../pod-uid.ts";
import { RbdAttacher } from "./rbd-attacher.ts";
import { RbdBlockVolume } from "./rbd-block.ts";
import { isRbdSpec, parseRbdVolumeId, rbdGlobalMountDir, rbdPluginName, rbdVolumeInfo } from "./rbd-source.ts";

class RbdMounter implements VolumeMounter {
  constructor(
    private readonly plugin: RbdPlugin,
    private readonly spec: VolumeSpec,
    private readonly dir: string,
  ) {}

  getPath(): string {
    return this.dir;
  }

  getAttributes(): VolumeAttributes {
    const readOnly = rbdVolumeInfo(this.spec).readOnly;
    return { readOnly, managed: !readOnly };
  }

  /** Bind-mounts the per-node mount, which MountDevice must have made (`no device is mounted at ...`). */
  async setUp(_args: MounterArgs): Promise<void> {
    const node = this.plugin.node("rbd SetUp");
    const info = rbdVolumeInfo(this.spec);
    await bindMountIntoPod(node, this.plugin.host.logger, {
      globalPath: rbdGlobalMountDir(node.rootDir, info.pool, info.image),
      dir: this.dir,
      readOnly: info.readOnly,
      mountOptions: mountOptionsFromSpec(this.spec),
      requireGlobalMount: true,
    });
  }
}

class RbdUnmounter implements VolumeUnmounter {
  constructor(
    private readonly node: NodeVolumeContext,
    private readonly dir: string,
  ) {}

  getPath(): string {
    return this.dir;
  }

  tearDown(): Promise<void> {
    return tearDownPodMount(this.node, this.dir, false);
  }
}

export class RbdPlugin extends PluginBase implements AttachableVolumePlugin, BlockVolumePlugin {
  readonly name = rbdPluginName;

  canSupport(spec: VolumeSpec): boolean {
    return isRbdSpec(spec);
  }

  requiresRemount(): boolean {
    return false;
  }

  supportsMountOption(): boolean {
    return true;
  }

  /** `<pool>:<image>`: the same image is the same volume whichever PV names it. */
  getVolumeName(spec: VolumeSpec): string {
    const info = rbdVolumeInfo(spec);
    return `${info.pool}:${info.image}`;
  }

  canAttach(): boolean {
    return true;
  }

  canDeviceMount(): boolean {
    return true;
  }

  newAttacher(): Attacher {
    return this.attacher();
  }

  newDetacher(): Detacher {
    return this.attacher();
  }

  newDeviceMounter(): DeviceMounter {
    return this.attacher();
  }

  newDeviceUnmounter(): DeviceUnmounter {
    return this.attacher();
  }

  getDeviceMountRefs(deviceMountPath: string): Promise<string[]> {
    return this.node("rbd device mount refs").mounter.getMountRefs(deviceMountPath);
  }

  newMounter(spec: VolumeSpec, pod: Pod): VolumeMounter {
    rbdVolumeInfo(spec);
    const node = this.node("rbd SetUp");
    return new RbdMounter(this, spec, podVolumeDir(node.rootDir, podUIDOf(pod), this.name, spec.name()));
  }

  newUnmounter(specName: string, podUID: string): VolumeUnmounter {
    const node = this.node("rbd TearDown");
    return new RbdUnmounter(node, podVolumeDir(node.rootDir, podUID, this.name, specName));
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

  async constructBlockVolumeSpec(_podUID: string, volumeName: string): Promise<VolumeSpec> {
    return VolumeSpec.fromPersistentVolume({
      metadata: { name: volumeName },
      spec: { rbd: { monitors: [], image: "" }, volumeMode: "Block" },
    });
  }

  private attacher(): RbdAttacher {
    return new RbdAttacher(this.host, () => this.node("rbd node operation"));
  }
}
