/**
 * The secret plugin (`kubernetes.io/secret`): a Secret's keys as files on a tmpfs, so secret bytes
 * never touch the node's disk. Refreshed on every pod sync; a missing Secret fails SetUp with
 * `secret "<name>" not found` unless the volume is `optional`.
 */
import type { SecretVolumeSource } from "kubernetes-types/core/v1.js";
import type { Payload } from "../../atomic-writer.ts";
import type { ReconstructedVolume } from "../../plugin.ts";
import { VolumeSpec } from "../../spec.ts";
import { AtomicVolumePlugin, type PayloadContext } from "../atomic-volume/atomic-volume-plugin.ts";
import { mediumMemory } from "../emptydir/medium.ts";
import { fetchSecret, makeSecretPayload } from "./secret-payload.ts";

const secretPluginName = "kubernetes.io/secret";

export class SecretPlugin extends AtomicVolumePlugin<SecretVolumeSource> {
  readonly name = secretPluginName;
  protected readonly kind = "secret";
  protected readonly medium = mediumMemory;

  getVolumeName(spec: VolumeSpec): string {
    return this.requireSource(spec).secretName ?? "";
  }

  async constructVolumeSpec(volumeName: string): Promise<ReconstructedVolume> {
    return { spec: VolumeSpec.fromVolume({ name: volumeName, secret: { secretName: volumeName } }) };
  }

  protected sourceOf(spec: VolumeSpec): SecretVolumeSource | undefined {
    return spec.volume?.secret;
  }

  protected async collectPayload(source: SecretVolumeSource, { pod }: PayloadContext): Promise<Payload> {
    const optional = source.optional ?? false;
    const namespace = pod.metadata?.namespace ?? "default";
    const secret = await fetchSecret(this.host.api, namespace, source.secretName ?? "", optional);
    return makeSecretPayload(source.items, secret, source.defaultMode, optional);
  }
}
