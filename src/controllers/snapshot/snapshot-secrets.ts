/**
 * The snapshotter's secrets (external-snapshotter pkg/utils): a VolumeSnapshotClass names them with
 * `csi.storage.k8s.io/snapshotter-secret-name` / `-namespace` (CreateSnapshot and DeleteSnapshot)
 * and `csi.storage.k8s.io/snapshotter-list-secret-name` / `-namespace` (ListSnapshots of a
 * pre-provisioned snapshot). Templates may use `${volumesnapshotcontent.name}` and
 * `${volumesnapshot.namespace}` (namespace and name) and `${volumesnapshot.name}` (name only).
 *
 * The snapshot controller resolves the snapshotter secret when it creates a content and records it
 * there in two annotations, so the sidecar can still delete the snapshot once the class is gone;
 * the sidecar reads the Secret behind them for both calls.
 */
import type { SecretReference } from "kubernetes-types/core/v1.js";
import type { Client } from "../../api/client/client.ts";
import type { VolumeSnapshot, VolumeSnapshotContent } from "../../api/objects.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { readSecretData } from "../csi/secret-data.ts";
import { resolveSecretReference, secretKeys } from "../csi/secret-references.ts";

export const snapshotterSecretKeys = secretKeys("Snapshotter", "snapshotter");
export const snapshotterListSecretKeys = secretKeys("SnapshotterList", "snapshotter-list");

/** On a VolumeSnapshotContent: the snapshotter secret, for CreateSnapshot and DeleteSnapshot. */
export const deletionSecretNameAnnotation = "snapshot.storage.kubernetes.io/deletion-secret-name";
export const deletionSecretNamespaceAnnotation = "snapshot.storage.kubernetes.io/deletion-secret-namespace";

/** The Secret the class parameters name for `keys`; undefined when none. */
export function snapshotSecretReference(
  keys: typeof snapshotterSecretKeys,
  parameters: Readonly<Record<string, string>>,
  contentName: string,
  snapshot: VolumeSnapshot | undefined,
): SecretReference | undefined {
  const namespaceValues: Record<string, string> = { "volumesnapshotcontent.name": contentName };
  const nameValues: Record<string, string> = { "volumesnapshotcontent.name": contentName };
  if (snapshot !== undefined) {
    namespaceValues["volumesnapshot.namespace"] = snapshot.metadata?.namespace ?? "";
    nameValues["volumesnapshot.namespace"] = snapshot.metadata?.namespace ?? "";
    nameValues["volumesnapshot.name"] = snapshot.metadata?.name ?? "";
  }
  return resolveSecretReference(keys, parameters, { namespaceValues, nameValues });
}

/** The two annotations recording the snapshotter secret on a new content. */
export function deletionSecretAnnotations(reference: SecretReference | undefined): Record<string, string> {
  if (reference === undefined) return {};
  return {
    [deletionSecretNameAnnotation]: reference.name ?? "",
    [deletionSecretNamespaceAnnotation]: reference.namespace ?? "",
  };
}

/** The Secret's data, as the driver gets it; external-snapshotter's GetCredentials error when it cannot be read. */
export async function secretCredentials(
  client: Client,
  reference: SecretReference | undefined,
): Promise<Record<string, string>> {
  if (reference === undefined) return {};
  const namespace = reference.namespace ?? "";
  const name = reference.name ?? "";
  try {
    return await readSecretData(client, { namespace, name });
  } catch (error) {
    throw new Error(`error getting secret ${name} in namespace ${namespace}: ${errorMessage(error)}`);
  }
}

/**
 * The credentials the content's annotations name (GetCredentialsFromAnnotation): none without both
 * annotations; an error naming the content when they are empty or the Secret cannot be read.
 */
export async function credentialsFromAnnotations(
  client: Client,
  content: VolumeSnapshotContent,
): Promise<Record<string, string>> {
  const annotations = content.metadata?.annotations ?? {};
  const name = annotations[deletionSecretNameAnnotation];
  const namespace = annotations[deletionSecretNamespaceAnnotation];
  if (name === undefined || namespace === undefined) return {};
  const contentName = JSON.stringify(content.metadata?.name ?? "");
  if (name === "" || namespace === "") {
    throw new Error(
      `cannot retrieve secrets for snapshot content ${contentName}, err: secret name or namespace not specified`,
    );
  }
  try {
    return await secretCredentials(client, { name, namespace });
  } catch {
    // Upstream logs the Secret's error and reports only that the credentials could not be had.
    throw new Error(`cannot get credentials for snapshot content ${contentName}`);
  }
}
