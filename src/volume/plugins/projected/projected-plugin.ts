/**
 * The projected plugin (`kubernetes.io/projected`): several sources — Secrets, ConfigMaps, downward
 * API fields, service account tokens — in one tmpfs directory. Every pod's `kube-api-access-*`
 * volume is one. Refreshed on every pod sync.
 */
import type { ProjectedVolumeSource } from "kubernetes-types/core/v1.js";
import type { Payload } from "../../atomic-writer.ts";
import type { ReconstructedVolume } from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import { AtomicVolumePlugin, type PayloadContext } from "../atomic-volume/atomic-volume-plugin.ts";
import { mediumMemory } from "../emptydir/medium.ts";
import { collectProjectedData } from "./projected-payload.ts";

const projectedPluginName = "kubernetes.io/projected";

export class ProjectedPlugin extends AtomicVolumePlugin<ProjectedVolumeSource> {
  readonly name = projectedPluginName;
  protected readonly kind = "projected";
  protected readonly medium = mediumMemory;

  getVolumeName(spec: VolumeSpec): string {
    return spec.name();
  }

  async constructVolumeSpec(volumeName: string): Promise<ReconstructedVolume> {
    return { spec: VolumeSpec.fromVolume({ name: volumeName, projected: { sources: [] } }) };
  }

  protected sourceOf(spec: VolumeSpec): ProjectedVolumeSource | undefined {
    return spec.volume?.projected;
  }

  protected collectPayload(source: ProjectedVolumeSource, { spec, pod, node, args }: PayloadContext): Promise<Payload> {
    return collectProjectedData(source, {
      api: this.host.api,
      pod,
      volumeName: spec.name(),
      nodeAllocatable: node.allocatable,
      args,
    });
  }
}
