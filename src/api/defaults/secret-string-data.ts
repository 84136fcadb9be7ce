/**
 * Secret `stringData`: a write-only convenience. Kubernetes merges it into `data` (base64-encoded,
 * `stringData` winning over `data` for the same key) when it converts the request, so it is never
 * stored and never served. A `stringData` that is not a map of strings is left for validation to
 * refuse with its field path.
 */
import type { KObject } from "../objects.ts";
import { setOwnField } from "../own-field.ts";
import { isRecord } from "./fill.ts";

export function mergeSecretStringData(secret: KObject): KObject {
  const { stringData } = secret;
  if (stringData === undefined || stringData === null) {
    if (!("stringData" in secret)) return secret;
    const { stringData: _dropped, ...rest } = secret;
    return rest;
  }
  if (!isRecord(stringData) || Object.values(stringData).some((value) => typeof value !== "string")) return secret;
  const { stringData: _merged, ...rest } = secret;
  const data: Record<string, unknown> = isRecord(secret.data) ? { ...secret.data } : {};
  for (const [key, value] of Object.entries(stringData)) {
    setOwnField(data, key, Buffer.from(value as string, "utf8").toString("base64"));
  }
  return { ...rest, data };
}
