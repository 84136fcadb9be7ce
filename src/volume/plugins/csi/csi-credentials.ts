/**
 * The secrets a driver gets with NodeStage / NodePublish (csi_util.go getCredentialsFromSecret):
 * every key of the referenced Secret's `data`, decoded. A secret that cannot be read is reported
 * with the words Kubernetes uses; the callers treat it as transient (the secret may appear).
 */
import type { SecretReference } from "kubernetes-types/core/v1.js";
import { errorMessage } from "../../../runtime/error-message.ts";
import type { VolumeApi } from "../../volume-host.ts";
import { csiMessagePrefix } from "./csi-constants.ts";

export async function credentialsFromSecret(api: VolumeApi, ref: SecretReference): Promise<Record<string, string>> {
  const name = ref.name ?? "";
  const namespace = ref.namespace ?? "";
  const failed = (reason: string): Error =>
    new Error(
      `${csiMessagePrefix}failed to find the secret ${name} in the namespace ${namespace} with error: ${reason}`,
    );
  let secret: Awaited<ReturnType<VolumeApi["getSecret"]>>;
  try {
    secret = await api.getSecret(namespace, name);
  } catch (err) {
    throw failed(errorMessage(err));
  }
  if (secret === undefined) throw failed(`secrets "${name}" not found`);
  const credentials: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.data ?? {})) {
    credentials[key] = Buffer.from(value, "base64").toString("utf8");
  }
  return credentials;
}
