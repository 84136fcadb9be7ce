/**
 * The projected plugin (`kubernetes.io/projected`): several sources — Secrets, ConfigMaps, downward
 * API fields, service account tokens — in one tmpfs directory. Every pod's `kube-api-access-*`
 * volume is one. Refreshed on every pod sync.
 */
import type { Pod, ProjectedVolumeSource } from "kubernetes-types/core/v1.js";
import type { ReconstructedVolume, VolumeMounter, VolumePlugin, VolumeUnmounter } from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import type { VolumeHost } from "../../volume-host.ts";
import { AtomicVolumeMounter, type AtomicVolumeTarget, AtomicVolumeUnmounter } from "../atomic-volume/atomic-volume.ts";
import { EmptyDirPlugin } from "../emptydir/empty-dir-plugin.ts";
import { mediumMemory } from "../emptydir/medium.ts";
import { PluginBase } from "../plugin-base.ts";
import { podUIDOf } from "../pod-uid.ts";
import { collectProjectedData } from "./projected-payload.ts";

export const projectedPluginName = "kubernetes.io/projected";

function projectedSource(spec: VolumeSpec): ProjectedVolumeSource | undefined {
  return spec.volume?.projected;
}

export class ProjectedPlugin extends PluginBase implements VolumePlugin {
  readonly name = projectedPluginName;
  private readonly emptyDirPlugin = new EmptyDirPlugin();

  override init(host: VolumeHost): void {
    super.init(host);
    this.emptyDirPlugin.init(host);
  }

  canSupport(spec: VolumeSpec): boolean {
    return projectedSource(spec) !== undefined;
  }

  requiresRemount(): boolean {
    return true;
  }

  supportsMountOption(): boolean {
    return false;
  }

  getVolumeName(spec: VolumeSpec): string {
    return spec.name();
  }

  newMounter(spec: VolumeSpec, pod: Pod): VolumeMounter {
    const source = projectedSource(spec);
    if (source === undefined) throw new Error(`volume "${spec.name()}" is not a projected volume`);
    const target = this.target(spec.name(), podUIDOf(pod));
    return new AtomicVolumeMounter(target, pod, (args) =>
      collectProjectedData(source, {
        api: this.host.api,
        pod,
        volumeName: spec.name(),
        nodeAllocatable: target.node.allocatable,
        args,
      }),
    );
  }

  newUnmounter(specName: string, podUID: string): VolumeUnmounter {
    return new AtomicVolumeUnmounter(this.target(specName, podUID));
  }

  async constructVolumeSpec(volumeName: string): Promise<ReconstructedVolume> {
    return { spec: VolumeSpec.fromVolume({ name: volumeName, projected: { sources: [] } }) };
  }

  private target(volumeName: string, podUID: string): AtomicVolumeTarget {
    return {
      pluginName: this.name,
      host: this.host,
      node: this.node("projected volume"),
      emptyDirPlugin: this.emptyDirPlugin,
      medium: mediumMemory,
      volumeName,
      podUID,
    };
  }
}
