/**
 * The emptyDir plugin (`kubernetes.io/empty-dir`): scratch space that lives as long as the pod, on
 * the node's disk (default), in memory (`medium: Memory` → tmpfs) or in huge pages. Neither
 * attachable nor device-mountable: each pod has its own.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import type { ReconstructedVolume, VolumeMounter, VolumePlugin, VolumeUnmounter } from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import { PluginBase } from "../plugin-base.ts";
import { podUIDOf } from "../pod-uid.ts";
import { EmptyDir, emptyDirPluginName } from "./empty-dir.ts";
import { mediumDefault, mediumMemory, type StorageMedium } from "./medium.ts";
import { allocatableMemoryBytes, emptyDirMemorySizeBytes } from "./memory-size.ts";

/** Prefix of the emptyDir that backs a secret, configMap, downwardAPI or projected volume. */
const wrapperVolumeNamePrefix = "wrapped_";

export class EmptyDirPlugin extends PluginBase implements VolumePlugin {
  readonly name = emptyDirPluginName;

  canSupport(spec: VolumeSpec): boolean {
    return spec.volume?.emptyDir !== undefined;
  }

  requiresRemount(): boolean {
    return false;
  }

  supportsMountOption(): boolean {
    return false;
  }

  getVolumeName(spec: VolumeSpec): string {
    return spec.name();
  }

  newMounter(spec: VolumeSpec, pod: Pod): VolumeMounter {
    const source = spec.volume?.emptyDir;
    if (source === undefined) throw new Error(`volume "${spec.name()}" is not an emptyDir volume`);
    const medium = source.medium ?? mediumDefault;
    return this.emptyDir(podUIDOf(pod), spec.name(), medium, pod, source.sizeLimit);
  }

  /** The medium is found from the mount table at teardown, so the unmounter needs no spec. */
  newUnmounter(specName: string, podUID: string): VolumeUnmounter {
    return this.emptyDir(podUID, specName, mediumDefault, undefined, undefined);
  }

  async constructVolumeSpec(volumeName: string): Promise<ReconstructedVolume> {
    return { spec: VolumeSpec.fromVolume({ name: volumeName, emptyDir: {} }) };
  }

  /** The emptyDir that backs another plugin's volume (its ready marker is `wrapped_<volume>`). */
  newWrapper(volumeName: string, medium: StorageMedium, pod: Pod | undefined, podUID: string): EmptyDir {
    return this.emptyDir(podUID, `${wrapperVolumeNamePrefix}${volumeName}`, medium, pod, undefined);
  }

  private emptyDir(
    podUID: string,
    volumeName: string,
    medium: StorageMedium,
    pod: Pod | undefined,
    sizeLimit: string | undefined,
  ): EmptyDir {
    const node = this.node("emptyDir volume");
    const sizeLimitBytes =
      medium === mediumMemory && pod !== undefined
        ? emptyDirMemorySizeBytes(allocatableMemoryBytes(node.allocatable), sizeLimit, pod)
        : undefined;
    return new EmptyDir({ node, logger: this.host.logger, podUID, volumeName, medium, sizeLimitBytes, pod });
  }
}
