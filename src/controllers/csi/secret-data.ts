/**
 * Reads a Secret the way both sidecars hand credentials to a driver: a GET (not a cache, so a
 * Secret created a moment ago is found) and every `data` value decoded from base64 to text.
 * `stringData` is write-only in the API and never read back.
 */
import type { Client } from "../../api/client/client.ts";

/** A Secret named by namespace and name, as in a PV's `controllerPublishSecretRef`. */
interface SecretName {
  namespace: string;
  name: string;
}

export async function readSecretData(client: Client, secret: SecretName): Promise<Record<string, string>> {
  const stored = await client.secrets.get(secret.namespace, secret.name);
  const decoded: Record<string, string> = {};
  for (const [key, encoded] of Object.entries(stored.data ?? {})) {
    decoded[key] = Buffer.from(encoded, "base64").toString("utf8");
  }
  return decoded;
}
