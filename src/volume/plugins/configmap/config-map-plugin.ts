/**
 * The configMap plugin (`kubernetes.io/configmap`): a ConfigMap's keys as files in a directory on
 * the node's disk. Refreshed on every pod sync through the AtomicWriter, so a running pod sees an
 * update all at once; a missing ConfigMap fails SetUp with `configmap "<name>" not found` unless the
 * volume is `optional`.
 */
import type { ConfigMapVolumeSource } from "kubernetes-types/core/v1.js";
import type { Payload } from "../../atomic-writer.ts";
import type { ReconstructedVolume } from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import { AtomicVolumePlugin, type PayloadContext } from "../atomic-volume/atomic-volume-plugin.ts";
import { mediumDefault } from "../emptydir/medium.ts";
import { fetchConfigMap, makeConfigMapPayload } from "./config-map-payload.ts";

const configMapPluginName = "kubernetes.io/configmap";

export class ConfigMapPlugin extends AtomicVolumePlugin<ConfigMapVolumeSource> {
  readonly name = configMapPluginName;
  protected readonly kind = "configMap";
  protected readonly medium = mediumDefault;

  getVolumeName(spec: VolumeSpec): string {
    return this.requireSource(spec).name ?? "";
  }

  async constructVolumeSpec(volumeName: string): Promise<ReconstructedVolume> {
    return { spec: VolumeSpec.fromVolume({ name: volumeName, configMap: { name: volumeName } }) };
  }

  protected sourceOf(spec: VolumeSpec): ConfigMapVolumeSource | undefined {
    return spec.volume?.configMap;
  }

  protected async collectPayload(source: ConfigMapVolumeSource, { pod }: PayloadContext): Promise<Payload> {
    const optional = source.optional ?? false;
    const namespace = pod.metadata?.namespace ?? "default";
    const configMap = await fetchConfigMap(this.host.api, namespace, source.name ?? "", optional);
    return makeConfigMapPayload(source.items, configMap, source.defaultMode, optional);
  }
}
