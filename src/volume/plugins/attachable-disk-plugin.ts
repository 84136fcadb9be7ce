/**
 * What rbd and sim-disk share: a disk that is attached to the node (by the attach/detach controller,
 * or by the node itself for rbd), formatted and mounted once per node at a global directory by
 * MountDevice, and bind-mounted from there into each pod's volume directory. One attacher object
 * serves as attacher, detacher, device mounter and device unmounter, as in Kubernetes.
 *
 * A subclass says which specs it takes, how it names a volume, how it attaches, and where a spec's
 * per-node mount is; raw block mode and reconstruction stay its own.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { podVolumeDir } from "../paths.ts";
import type {
  AttachableVolumePlugin,
  Attacher,
  Detacher,
  DeviceMounter,
  DeviceUnmounter,
  ReconstructedVolume,
  VolumeMounter,
  VolumeUnmounter,
} from "../plugin.ts";
import type { VolumeSpec } from "../spec.ts";
import { PodBindMounter, type PodBindSource, podBindUnmounter } from "./bind-mount.ts";
import { PluginBase } from "./plugin-base.ts";
import { podUIDOf } from "./pod-uid.ts";

/** How pods mount one disk volume. */
export interface DiskPodMount {
  readOnly: boolean;
  /** The per-node mount MountDevice made, which pods bind-mount. */
  globalMountDir(rootDir: string): string;
}

export abstract class AttachableDiskPlugin extends PluginBase implements AttachableVolumePlugin {
  /** Names the plugin in errors about calls that need the node (`rbd SetUp`, `sim-disk TearDown`). */
  protected abstract readonly shortName: string;

  abstract canSupport(spec: VolumeSpec): boolean;
  abstract getVolumeName(spec: VolumeSpec): string;
  abstract constructVolumeSpec(volumeName: string, mountPath: string): Promise<ReconstructedVolume>;
  /** A new attacher; it reaches the node only when a node-side call needs it. */
  protected abstract diskAttacher(): Attacher & Detacher;
  /** Checks that `spec` is one of this plugin's volumes (throwing its error if not) and tells how pods mount it. */
  protected abstract podMountOf(spec: VolumeSpec): DiskPodMount;

  /**
   * Throws podMountOf's error for another plugin's spec, so a mounter is never made for a volume this
   * plugin cannot mount (the mount itself is looked up again at SetUp, from the spec it is given).
   */
  private requireOwnSpec(spec: VolumeSpec): void {
    this.podMountOf(spec);
  }

  /** Shared by this plugin's pod mounters (the kubelet keeps one per mounted pod volume). */
  private readonly podBindSource: PodBindSource = {
    requireGlobalMount: true,
    readOnly: (spec) => this.podMountOf(spec).readOnly,
    globalPath: async (node, spec) => this.podMountOf(spec).globalMountDir(node.rootDir),
  };

  requiresRemount(): boolean {
    return false;
  }

  supportsMountOption(): boolean {
    return true;
  }

  canAttach(): boolean {
    return true;
  }

  canDeviceMount(): boolean {
    return true;
  }

  newAttacher(): Attacher {
    return this.diskAttacher();
  }

  newDetacher(): Detacher {
    return this.diskAttacher();
  }

  newDeviceMounter(): DeviceMounter {
    return this.diskAttacher();
  }

  newDeviceUnmounter(): DeviceUnmounter {
    return this.diskAttacher();
  }

  getDeviceMountRefs(deviceMountPath: string): Promise<string[]> {
    return this.node(`${this.shortName} device mount refs`).mounter.getMountRefs(deviceMountPath);
  }

  /** SetUp bind-mounts the per-node mount, which MountDevice must have made (`no device is mounted at ...`). */
  newMounter(spec: VolumeSpec, pod: Pod): VolumeMounter {
    this.requireOwnSpec(spec);
    const node = this.node(`${this.shortName} SetUp`);
    const dir = podVolumeDir(node.rootDir, podUIDOf(pod), this.name, spec.name());
    return new PodBindMounter(node, this.host.logger, dir, spec, this.podBindSource);
  }

  newUnmounter(specName: string, podUID: string): VolumeUnmounter {
    const node = this.node(`${this.shortName} TearDown`);
    return podBindUnmounter(node, podVolumeDir(node.rootDir, podUID, this.name, specName), false);
  }
}
