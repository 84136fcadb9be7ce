/**
 * The configMap plugin (`kubernetes.io/configmap`): a ConfigMap's keys as files in a directory on
 * the node's disk. Refreshed on every pod sync through the AtomicWriter, so a running pod sees an
 * update all at once; a missing ConfigMap fails SetUp with `configmap "<name>" not found` unless the
 * volume is `optional`.
 */
import type { ConfigMapVolumeSource, Pod } from "kubernetes-types/core/v1.js";
import type { ReconstructedVolume, VolumeMounter, VolumePlugin, VolumeUnmounter } from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import type { VolumeHost } from "../../volume-host.ts";
import { AtomicVolumeMounter, type AtomicVolumeTarget, AtomicVolumeUnmounter } from "../atomic-volume/atomic-volume.ts";
import { EmptyDirPlugin } from "../emptydir/empty-dir-plugin.ts";
import { mediumDefault } from "../emptydir/medium.ts";
import { PluginBase } from "../plugin-base.ts";
import { podUIDOf } from "../pod-uid.ts";
import { fetchConfigMap, makeConfigMapPayload } from "./config-map-payload.ts";

export const configMapPluginName = "kubernetes.io/configmap";

function configMapSource(spec: VolumeSpec): ConfigMapVolumeSource | undefined {
  return spec.volume?.configMap;
}

export class ConfigMapPlugin extends PluginBase implements VolumePlugin {
  readonly name = configMapPluginName;
  private readonly emptyDirPlugin = new EmptyDirPlugin();

  override init(host: VolumeHost): void {
    super.init(host);
    this.emptyDirPlugin.init(host);
  }

  canSupport(spec: VolumeSpec): boolean {
    return configMapSource(spec) !== undefined;
  }

  requiresRemount(): boolean {
    return true;
  }

  supportsMountOption(): boolean {
    return false;
  }

  getVolumeName(spec: VolumeSpec): string {
    const source = configMapSource(spec);
    if (source === undefined) throw new Error(`volume "${spec.name()}" is not a configMap volume`);
    return source.name ?? "";
  }

  newMounter(spec: VolumeSpec, pod: Pod): VolumeMounter {
    const source = configMapSource(spec);
    if (source === undefined) throw new Error(`volume "${spec.name()}" is not a configMap volume`);
    const namespace = pod.metadata?.namespace ?? "default";
    const configMapName = source.name ?? "";
    const optional = source.optional ?? false;
    return new AtomicVolumeMounter(this.target(spec.name(), podUIDOf(pod)), pod, async () => {
      const configMap = await fetchConfigMap(this.host.api, namespace, configMapName, optional);
      return makeConfigMapPayload(source.items, configMap, source.defaultMode, optional);
    });
  }

  newUnmounter(specName: string, podUID: string): VolumeUnmounter {
    return new AtomicVolumeUnmounter(this.target(specName, podUID));
  }

  async constructVolumeSpec(volumeName: string): Promise<ReconstructedVolume> {
    return { spec: VolumeSpec.fromVolume({ name: volumeName, configMap: { name: volumeName } }) };
  }

  private target(volumeName: string, podUID: string): AtomicVolumeTarget {
    return {
      pluginName: this.name,
      host: this.host,
      node: this.node("configMap volume"),
      emptyDirPlugin: this.emptyDirPlugin,
      medium: mediumDefault,
      volumeName,
      podUID,
    };
  }
}
