/**
 * ConfigMap validation (core's ValidateConfigMap): keys are valid file names, a key is in data or
 * binaryData but not both, binaryData is base64, the whole fits in 1 MiB, and an immutable
 * ConfigMap stays as it is.
 */
import type { FieldCause } from "../errors.ts";
import { invalid, tooLong } from "./field-errors.ts";
import { key } from "./field-path.ts";
import { type JsonObject, readBoolean, readStringMap } from "./json-reader.ts";
import { byteLength, nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { checkConfigKey, maxSecretSizeBytes, validateBase64Values, validateImmutableData } from "./secret.ts";

const configMapMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };

export function validateConfigMap(configMap: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(configMap.metadata, configMapMeta, out);
  const data = readStringMap(configMap.data, "data", out) ?? {};
  const binaryData = readStringMap(configMap.binaryData, "binaryData", out) ?? {};
  let totalBytes = 0;
  for (const [name, value] of Object.entries(data)) {
    checkConfigKey(name, key("data", name), out);
    if (Object.hasOwn(binaryData, name)) {
      out.push(invalid(key("data", name), name, "duplicate of key present in binaryData"));
    }
    totalBytes += byteLength(value);
  }
  for (const name of Object.keys(binaryData)) checkConfigKey(name, key("binaryData", name), out);
  totalBytes += validateBase64Values(binaryData, "binaryData", out);
  // Kubernetes reports the size of the whole object at the root path.
  if (totalBytes > maxSecretSizeBytes) out.push(tooLong("", maxSecretSizeBytes));
  readBoolean(configMap.immutable, "immutable", out);
}

export function validateConfigMapUpdate(newConfigMap: JsonObject, oldConfigMap: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(newConfigMap.metadata, oldConfigMap.metadata, out);
  validateConfigMap(newConfigMap, out);
  validateImmutableData(newConfigMap, oldConfigMap, ["data", "binaryData"], out);
}
