/**
 * The VolumeApi plugins read through (secrets, configMaps, pods, PVs), answered by the API client.
 * Kubernetes' kubelet fetches these through its secret and configMap managers; a direct GET has
 * the same outcome for a mount: the current object, or "not found" worded by the plugin.
 */
import type { ConfigMap, PersistentVolume, Pod, Secret } from "kubernetes-types/core/v1.js";
import type { Client, ResourceClient } from "../../api/client/client.ts";
import { isApiError } from "../../api/errors.ts";
import type { VolumeApi } from "../../volume/volume-host.ts";

async function getOrUndefined<T extends object>(
  resource: Pick<ResourceClient<T & { metadata?: object }>, "get">,
  namespace: string,
  name: string,
): Promise<T | undefined> {
  try {
    return await resource.get(namespace, name);
  } catch (err) {
    if (isApiError(err, "NotFound")) return undefined;
    throw err;
  }
}

export class ClientVolumeApi implements VolumeApi {
  constructor(private readonly client: Client) {}

  getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    return getOrUndefined(this.client.secrets, namespace, name);
  }

  getConfigMap(namespace: string, name: string): Promise<ConfigMap | undefined> {
    return getOrUndefined(this.client.configMaps, namespace, name);
  }

  getPod(namespace: string, name: string): Promise<Pod | undefined> {
    return getOrUndefined(this.client.pods, namespace, name);
  }

  getPersistentVolume(name: string): Promise<PersistentVolume | undefined> {
    return getOrUndefined(this.client.persistentVolumes, "", name);
  }
}
