/**
 * The downward API plugin (`kubernetes.io/downward-api`): the pod's own name, namespace, uid,
 * labels, annotations and container resources as files on a tmpfs, refreshed on every pod sync (so
 * a label change reaches the running pod).
 */
import type { DownwardAPIVolumeSource } from "kubernetes-types/core/v1.js";
import type { Payload } from "../../atomic-writer.ts";
import type { ReconstructedVolume } from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import { AtomicVolumePlugin, type PayloadContext } from "../atomic-volume/atomic-volume-plugin.ts";
import { mediumMemory } from "../emptydir/medium.ts";
import { collectDownwardApiData } from "./downward-api-payload.ts";

const downwardApiPluginName = "kubernetes.io/downward-api";

export class DownwardApiPlugin extends AtomicVolumePlugin<DownwardAPIVolumeSource> {
  readonly name = downwardApiPluginName;
  protected readonly kind = "downwardAPI";
  protected readonly medium = mediumMemory;

  getVolumeName(spec: VolumeSpec): string {
    return spec.name();
  }

  async constructVolumeSpec(volumeName: string): Promise<ReconstructedVolume> {
    return { spec: VolumeSpec.fromVolume({ name: volumeName, downwardAPI: {} }) };
  }

  protected sourceOf(spec: VolumeSpec): DownwardAPIVolumeSource | undefined {
    return spec.volume?.downwardAPI;
  }

  protected async collectPayload(source: DownwardAPIVolumeSource, { pod, node }: PayloadContext): Promise<Payload> {
    return collectDownwardApiData(source.items, pod, node.allocatable, source.defaultMode);
  }
}
