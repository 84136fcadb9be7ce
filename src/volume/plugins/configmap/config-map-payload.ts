/**
 * The files of a configMap volume (Kubernetes' configmap.MakePayload), shared with projected
 * volumes: text keys (`data`) and binary keys (`binaryData`, base64 in the API).
 */
import type { ConfigMap, KeyToPath } from "kubernetes-types/core/v1.js";
import { notFound } from "../../../api/errors.ts";
import type { FileProjection } from "../../atomic-writer.ts";
import type { VolumeApi } from "../../volume-host.ts";
import { fileMode } from "../atomic-volume/atomic-volume.ts";

/** The ConfigMap, or an empty stand-in when it is missing and `optional`; else `configmap "<name>" not found`. */
export async function fetchConfigMap(
  api: VolumeApi,
  namespace: string,
  name: string,
  optional: boolean,
): Promise<ConfigMap> {
  const configMap = await api.getConfigMap(namespace, name);
  if (configMap !== undefined) return configMap;
  if (!optional) throw notFound("configmap", "", name);
  return { metadata: { namespace, name } };
}

/** The bytes of `key`: text data first, then binary data. */
function keyBytes(configMap: ConfigMap, key: string): Uint8Array | undefined {
  const text = configMap.data?.[key];
  if (text !== undefined) return Buffer.from(text, "utf8");
  const binary = configMap.binaryData?.[key];
  return binary === undefined ? undefined : Buffer.from(binary, "base64");
}

export function makeConfigMapPayload(
  items: readonly KeyToPath[] | undefined,
  configMap: ConfigMap,
  defaultMode: number | undefined,
  optional: boolean,
): Map<string, FileProjection> {
  const payload = new Map<string, FileProjection>();
  if (items === undefined || items.length === 0) {
    const keys = [...Object.keys(configMap.data ?? {}), ...Object.keys(configMap.binaryData ?? {})];
    for (const key of keys) {
      payload.set(key, { data: keyBytes(configMap, key) as Uint8Array, mode: fileMode(undefined, defaultMode) });
    }
    return payload;
  }
  for (const item of items) {
    const data = keyBytes(configMap, item.key);
    if (data === undefined) {
      if (optional) continue;
      throw new Error(`configmap references non-existent config key: ${item.key}`);
    }
    payload.set(item.path, { data, mode: fileMode(item.mode, defaultMode) });
  }
  return payload;
}
