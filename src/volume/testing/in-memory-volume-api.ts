/**
 * A VolumeApi over plain maps, for tests and for tools that run plugins without an API server.
 * Objects are stored as given; `put` replaces, `remove` deletes.
 */
import type { ConfigMap, PersistentVolume, Pod, Secret } from "kubernetes-types/core/v1.js";
import type { ServiceAccountTokenRequest, VolumeApi } from "../volume-host.ts";

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function namespacedKey(obj: { metadata?: { namespace?: string; name?: string } }): string {
  const name = obj.metadata?.name;
  if (!name) throw new Error("in-memory volume api: metadata.name is required");
  return key(obj.metadata?.namespace ?? "default", name);
}

export class InMemoryVolumeApi implements VolumeApi {
  readonly secrets = new Map<string, Secret>();
  readonly configMaps = new Map<string, ConfigMap>();
  readonly pods = new Map<string, Pod>();
  readonly persistentVolumes = new Map<string, PersistentVolume>();
  /** Every token request made, in order. */
  readonly tokenRequests: ServiceAccountTokenRequest[] = [];

  putSecret(secret: Secret): void {
    this.secrets.set(namespacedKey(secret), secret);
  }

  putConfigMap(configMap: ConfigMap): void {
    this.configMaps.set(namespacedKey(configMap), configMap);
  }

  putPod(pod: Pod): void {
    this.pods.set(namespacedKey(pod), pod);
  }

  putPersistentVolume(pv: PersistentVolume): void {
    const name = pv.metadata?.name;
    if (!name) throw new Error("in-memory volume api: metadata.name is required");
    this.persistentVolumes.set(name, pv);
  }

  async getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    return this.secrets.get(key(namespace, name));
  }

  async getConfigMap(namespace: string, name: string): Promise<ConfigMap | undefined> {
    return this.configMaps.get(key(namespace, name));
  }

  async getPod(namespace: string, name: string): Promise<Pod | undefined> {
    return this.pods.get(key(namespace, name));
  }

  async getPersistentVolume(name: string): Promise<PersistentVolume | undefined> {
    return this.persistentVolumes.get(name);
  }

  /** A token that names what it was issued for, so tests can see it in the projected file. */
  async requestServiceAccountToken(request: ServiceAccountTokenRequest): Promise<string> {
    this.tokenRequests.push(request);
    return `token:${request.namespace}:${request.serviceAccountName}:${request.podName}:${request.audiences.join(",")}`;
  }
}
