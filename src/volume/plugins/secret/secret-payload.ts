/**
 * The files of a secret volume (Kubernetes' secret.MakePayload), shared with projected volumes:
 * every key when no `items` are given, else each listed key at its `path`.
 */
import type { KeyToPath, Secret } from "kubernetes-types/core/v1.js";
import { notFound } from "../../../api/errors.ts";
import type { FileProjection } from "../../atomic-writer.ts";
import type { VolumeApi } from "../../volume-host.ts";
import { fileMode } from "../atomic-volume/atomic-volume.ts";

/**
 * The Secret, or an empty stand-in when it is missing and `optional`. A missing required Secret fails
 * with `secret "<name>" not found`, the kubelet secret manager's wording.
 */
export async function fetchSecret(api: VolumeApi, namespace: string, name: string, optional: boolean): Promise<Secret> {
  const secret = await api.getSecret(namespace, name);
  if (secret !== undefined) return secret;
  if (!optional) throw notFound("secret", "", name);
  return { metadata: { namespace, name } };
}

export function makeSecretPayload(
  items: readonly KeyToPath[] | undefined,
  secret: Secret,
  defaultMode: number | undefined,
  optional: boolean,
): Map<string, FileProjection> {
  const data = secret.data ?? {};
  const payload = new Map<string, FileProjection>();
  if (items === undefined || items.length === 0) {
    for (const [name, encoded] of Object.entries(data)) {
      payload.set(name, { data: Buffer.from(encoded, "base64"), mode: fileMode(undefined, defaultMode) });
    }
    return payload;
  }
  for (const item of items) {
    const encoded = data[item.key];
    if (encoded === undefined) {
      if (optional) continue;
      throw new Error(`references non-existent secret key: ${item.key}`);
    }
    payload.set(item.path, { data: Buffer.from(encoded, "base64"), mode: fileMode(item.mode, defaultMode) });
  }
  return payload;
}
