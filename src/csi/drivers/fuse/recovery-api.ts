/**
 * The read-only API access a fuse node plugin needs to find, after a restart, the mounts it served.
 * As in seed 003, they are read from the cluster at start-up rather than from a copy the plugin
 * kept, which could be lost or drift from the cluster. The typed Client satisfies it through
 * `recoveryApiFromClient`; a test can hand in plain lists.
 */
import type { Client } from "../../../api/client/client.ts";
import type { PersistentVolume, PersistentVolumeClaim, Pod } from "../../../api/objects.ts";

export interface FuseRecoveryApi {
  listPersistentVolumes(): Promise<readonly PersistentVolume[]>;
  /** Claims in every namespace. */
  listPersistentVolumeClaims(): Promise<readonly PersistentVolumeClaim[]>;
  /** Pods bound to `nodeName`, in every namespace. */
  listPodsOnNode(nodeName: string): Promise<readonly Pod[]>;
}

/** Three list calls on the API; pods are selected by `spec.nodeName` on the server. */
export function recoveryApiFromClient(
  client: Pick<Client, "persistentVolumes" | "persistentVolumeClaims" | "pods">,
): FuseRecoveryApi {
  return {
    listPersistentVolumes: async () => (await client.persistentVolumes.list()).items,
    listPersistentVolumeClaims: async () => (await client.persistentVolumeClaims.list()).items,
    listPodsOnNode: async (nodeName) => (await client.pods.list({ fieldSelector: `spec.nodeName=${nodeName}` })).items,
  };
}
