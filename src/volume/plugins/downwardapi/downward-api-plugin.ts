/**
 * The downward API plugin (`kubernetes.io/downward-api`): the pod's own name, namespace, uid,
 * labels, annotations and container resources as files on a tmpfs, refreshed on every pod sync (so
 * a label change reaches the running pod).
 */
import type { DownwardAPIVolumeSource, Pod } from "kubernetes-types/core/v1.js";
import type { ReconstructedVolume, VolumeMounter, VolumePlugin, VolumeUnmounter } from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import type { VolumeHost } from "../../volume-host.ts";
import { AtomicVolumeMounter, type AtomicVolumeTarget, AtomicVolumeUnmounter } from "../atomic-volume/atomic-volume.ts";
import { EmptyDirPlugin } from "../emptydir/empty-dir-plugin.ts";
import { mediumMemory } from "../emptydir/medium.ts";
import { PluginBase } from "../plugin-base.ts";
import { podUIDOf } from "../pod-uid.ts";
import { collectDownwardApiData } from "./downward-api-payload.ts";

export const downwardApiPluginName = "kubernetes.io/downward-api";

function downwardApiSource(spec: VolumeSpec): DownwardAPIVolumeSource | undefined {
  return spec.volume?.downwardAPI;
}

export class DownwardApiPlugin extends PluginBase implements VolumePlugin {
  readonly name = downwardApiPluginName;
  private readonly emptyDirPlugin = new EmptyDirPlugin();

  override init(host: VolumeHost): void {
    super.init(host);
    this.emptyDirPlugin.init(host);
  }

  canSupport(spec: VolumeSpec): boolean {
    return downwardApiSource(spec) !== undefined;
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
    const source = downwardApiSource(spec);
    if (source === undefined) throw new Error(`volume "${spec.name()}" is not a downwardAPI volume`);
    const target = this.target(spec.name(), podUIDOf(pod));
    return new AtomicVolumeMounter(target, pod, async () =>
      collectDownwardApiData(source.items, pod, target.node.allocatable, source.defaultMode),
    );
  }

  newUnmounter(specName: string, podUID: string): VolumeUnmounter {
    return new AtomicVolumeUnmounter(this.target(specName, podUID));
  }

  async constructVolumeSpec(volumeName: string): Promise<ReconstructedVolume> {
    return { spec: VolumeSpec.fromVolume({ name: volumeName, downwardAPI: {} }) };
  }

  private target(volumeName: string, podUID: string): AtomicVolumeTarget {
    return {
      pluginName: this.name,
      host: this.host,
      node: this.node("downwardAPI volume"),
      emptyDirPlugin: this.emptyDirPlugin,
      medium: mediumMemory,
      volumeName,
      podUID,
    };
  }
}
