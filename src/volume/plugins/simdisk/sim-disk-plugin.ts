/**
 * kvol's simulated attachable disk (`kvol.io/sim-disk`), the in-tree-style counterpart of a cloud
 * disk: the attach/detach controller attaches it to a node through the disk provider, the kubelet
 * waits for the block device, formats and mounts it once per node, and pods bind-mount that mount.
 * Raw block mode maps the device. See sim-disk-source.ts for how a PV names a disk.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { podVolumeDeviceDir, podVolumeDir } from "../../paths.ts";
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

export interface SimDiskPluginOptions {
  /** The provider to attach through; needed where attach/detach runs (the controller). */
  provider?: SimDiskProvider;
}

class SimDiskMounter implements VolumeMounter {
  constructor(
    private readonly plugin: SimDiskPlugin,
    private readonly spec: VolumeSpec,
    private readonly dir: string,
  ) {}

  getPath(): string {
    return this.dir;
  }

  getAttributes(): VolumeAttributes {
    const { readOnly } = simDiskInfo(this.spec);
    return { readOnly, managed: !readOnly };
  }

  async setUp(_args: MounterArgs): Promise<void> {
    const node = this.plugin.node("sim-disk SetUp");
    const info = simDiskInfo(this.spec);
    await bindMountIntoPod(node, this.plugin.host.logger, {
      globalPath: simDiskGlobalMountDir(node.rootDir, info.diskId),
      dir: this.dir,
      readOnly: info.readOnly,
      mountOptions: mountOptionsFromSpec(this.spec),
      requireGlobalMount: true,
    });
  }
}

class SimDiskUnmounter implements VolumeUnmounter {
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

export class SimDiskPlugin extends PluginBase implements AttachableVolumePlugin, BlockVolumePlugin {
  readonly name = simDiskPluginName;
  private readonly provider: SimDiskProvider | undefined;

  constructor(options: SimDiskPluginOptions = {}) {
    super();
    this.provider = options.provider;
  }

  canSupport(spec: VolumeSpec): boolean {
    return isSimDiskSpec(spec);
  }

  requiresRemount(): boolean {
    return false;
  }

  supportsMountOption(): boolean {
    return true;
  }

  /** The disk id: one disk is one volume, whichever PV names it. */
  getVolumeName(spec: VolumeSpec): string {
    return simDiskInfo(spec).diskId;
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
    return this.node("sim-disk device mount refs").mounter.getMountRefs(deviceMountPath);
  }

  newMounter(spec: VolumeSpec, pod: Pod): VolumeMounter {
    simDiskInfo(spec);
    const node = this.node("sim-disk SetUp");
    return new SimDiskMounter(this, spec, podVolumeDir(node.rootDir, podUIDOf(pod), this.name, spec.name()));
  }

  newUnmounter(specName: string, podUID: string): VolumeUnmounter {
    const node = this.node("sim-disk TearDown");
    return new SimDiskUnmounter(node, podVolumeDir(node.rootDir, podUID, this.name, specName));
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

  async constructBlockVolumeSpec(_podUID: string, volumeName: string): Promise<VolumeSpec> {
    return this.specFor(volumeName, volumeName, "Block");
  }

  private specFor(name: string, diskId: string, volumeMode: "Filesystem" | "Block"): VolumeSpec {
    return VolumeSpec.fromPersistentVolume({
      metadata: { name },
      spec: { flexVolume: { driver: simDiskDriverName, options: { [simDiskIdOption]: diskId } }, volumeMode },
    });
  }

  private attacher(): SimDiskAttacher {
    return new SimDiskAttacher(this.host, this.provider, () => this.node("sim-disk node operation"));
  }
}
