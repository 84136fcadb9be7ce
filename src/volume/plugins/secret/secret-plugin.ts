/**
 * The secret plugin (`kubernetes.io/secret`): a Secret's keys as files on a tmpfs, so secret bytes
 * never touch the node's disk. Refreshed on every pod sync; a missing Secret fails SetUp with
 * `secret "<name>" not found` unless the volume is `optional`.
 */
import type { Pod, SecretVolumeSource } from "kubernetes-types/core/v1.js";
import type { ReconstructedVolume, VolumeMounter, VolumePlugin, VolumeUnmounter } from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import type { VolumeHost } from "../../volume-host.ts";
import { AtomicVolumeMounter, type AtomicVolumeTarget, AtomicVolumeUnmounter } from "../atomic-volume/atomic-volume.ts";
import { EmptyDirPlugin } from "../emptydir/empty-dir-plugin.ts";
import { mediumMemory } from "../emptydir/medium.ts";
import { PluginBase } from "../plugin-base.ts";
import { podUIDOf } from "../pod-uid.ts";
import { fetchSecret, makeSecretPayload } from "./secret-payload.ts";

export const secretPluginName = "kubernetes.io/secret";

function secretSource(spec: VolumeSpec): SecretVolumeSource | undefined {
  return spec.volume?.secret;
}

export class SecretPlugin extends PluginBase implements VolumePlugin {
  readonly name = secretPluginName;
  private readonly emptyDirPlugin = new EmptyDirPlugin();

  override init(host: VolumeHost): void {
    super.init(host);
    this.emptyDirPlugin.init(host);
  }

  canSupport(spec: VolumeSpec): boolean {
    return secretSource(spec) !== undefined;
  }

  requiresRemount(): boolean {
    return true;
  }

  supportsMountOption(): boolean {
    return false;
  }

  getVolumeName(spec: VolumeSpec): string {
    const source = secretSource(spec);
    if (source === undefined) throw new Error(`volume "${spec.name()}" is not a secret volume`);
    return source.secretName ?? "";
  }

  newMounter(spec: VolumeSpec, pod: Pod): VolumeMounter {
    const source = secretSource(spec);
    if (source === undefined) throw new Error(`volume "${spec.name()}" is not a secret volume`);
    const namespace = pod.metadata?.namespace ?? "default";
    const secretName = source.secretName ?? "";
    const optional = source.optional ?? false;
    return new AtomicVolumeMounter(this.target(spec.name(), podUIDOf(pod)), pod, async () => {
      const secret = await fetchSecret(this.host.api, namespace, secretName, optional);
      return makeSecretPayload(source.items, secret, source.defaultMode, optional);
    });
  }

  newUnmounter(specName: string, podUID: string): VolumeUnmounter {
    return new AtomicVolumeUnmounter(this.target(specName, podUID));
  }

  async constructVolumeSpec(volumeName: string): Promise<ReconstructedVolume> {
    return { spec: VolumeSpec.fromVolume({ name: volumeName, secret: { secretName: volumeName } }) };
  }

  private target(volumeName: string, podUID: string): AtomicVolumeTarget {
    return {
      pluginName: this.name,
      host: this.host,
      node: this.node("secret volume"),
      emptyDirPlugin: this.emptyDirPlugin,
      medium: mediumMemory,
      volumeName,
      podUID,
    };
  }
}
