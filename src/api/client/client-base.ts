/**
 * The convenience getters every Client has (`client.pods`, `client.nodes`, …), written once on top
 * of `resource(kind)` so each transport only implements how to build one ResourceClient.
 */
import type { KindMap, KindName } from "../objects.ts";
import type { CallCounter } from "./call-counter.ts";
import type { Client, PodClient, ResourceClient } from "./client.ts";

export abstract class ClientBase implements Client {
  abstract readonly calls: CallCounter;
  /** One ResourceClient per kind, built on first use. */
  private readonly resourceClients = new Map<KindName, ResourceClient<KindMap[KindName]>>();

  private podClient: PodClient | undefined;

  /** Builds the ResourceClient for `kind` (never "Pod"); called at most once per kind. */
  protected abstract createResourceClient<K extends KindName>(kind: K): ResourceClient<KindMap[K]>;
  /** Builds the pods client, which also speaks the `pods/binding` subresource; called at most once. */
  protected abstract createPodClient(): PodClient;

  resource<K extends KindName>(kind: K): ResourceClient<KindMap[K]> {
    // "Pod" is KindName "Pod", so the pods client has this kind's type.
    if (kind === "Pod") return this.pods as unknown as ResourceClient<KindMap[K]>;
    let client = this.resourceClients.get(kind);
    if (client === undefined) {
      client = this.createResourceClient(kind);
      this.resourceClients.set(kind, client);
    }
    // The map is keyed by kind and filled only by createResourceClient(kind), so the entry has this kind's type.
    return client as ResourceClient<KindMap[K]>;
  }

  get pods(): PodClient {
    this.podClient ??= this.createPodClient();
    return this.podClient;
  }
  get nodes() {
    return this.resource("Node");
  }
  get persistentVolumes() {
    return this.resource("PersistentVolume");
  }
  get persistentVolumeClaims() {
    return this.resource("PersistentVolumeClaim");
  }
  get storageClasses() {
    return this.resource("StorageClass");
  }
  get volumeAttachments() {
    return this.resource("VolumeAttachment");
  }
  get csiDrivers() {
    return this.resource("CSIDriver");
  }
  get csiNodes() {
    return this.resource("CSINode");
  }
  get events() {
    return this.resource("Event");
  }
  get leases() {
    return this.resource("Lease");
  }
  get statefulSets() {
    return this.resource("StatefulSet");
  }
  get replicaSets() {
    return this.resource("ReplicaSet");
  }
  get deployments() {
    return this.resource("Deployment");
  }
  get secrets() {
    return this.resource("Secret");
  }
  get configMaps() {
    return this.resource("ConfigMap");
  }
  get namespaces() {
    return this.resource("Namespace");
  }
}
