/**
 * The API objects the invariants read after every step, from the cluster's shared informer caches
 * (no API calls, no copies), with the indexes that keep those reads cheap on a large cluster: pods
 * by node, VolumeAttachments by PV, and PVs by the storage they name. One view per cluster, shared
 * by every invariant and by the data ledger.
 */

import { indexers, podsByNode, volumeAttachmentsByPersistentVolume } from "../../api/informer/indexes.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod, VolumeAttachment } from "../../api/objects.ts";
import { taintNodeOutOfService } from "../../api/scheduling/taints.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { identityOfInlineVolume, identityOfPersistentVolume, type StorageIdentity } from "./storage-identity.ts";

const persistentVolumesByStorage = {
  name: "invariants/persistentvolumes-by-storage",
  indexFunc: (pv: PersistentVolume): string[] => {
    const key = identityOfPersistentVolume(pv)?.key;
    return key === undefined ? [] : [key];
  },
};

/** A pod volume resolved to its storage: the PV (for claims) and what it names. */
interface PodStorage {
  readonly volumeName: string;
  readonly pv: PersistentVolume | undefined;
  readonly identity: StorageIdentity | undefined;
}

const views = new WeakMap<Cluster, ClusterView>();

export class ClusterView {
  readonly pods: SharedInformer<Pod>;
  readonly persistentVolumes: SharedInformer<PersistentVolume>;
  readonly claims: SharedInformer<PersistentVolumeClaim>;
  readonly nodes: SharedInformer<Node>;
  readonly volumeAttachments: SharedInformer<VolumeAttachment>;

  private constructor(cluster: Cluster) {
    this.pods = cluster.informers.informerFor("Pod");
    this.persistentVolumes = cluster.informers.informerFor("PersistentVolume");
    this.claims = cluster.informers.informerFor("PersistentVolumeClaim");
    this.nodes = cluster.informers.informerFor("Node");
    this.volumeAttachments = cluster.informers.informerFor("VolumeAttachment");
    this.pods.addIndexers(indexers(podsByNode));
    this.volumeAttachments.addIndexers(indexers(volumeAttachmentsByPersistentVolume));
    this.persistentVolumes.addIndexers(indexers(persistentVolumesByStorage));
  }

  /** The cluster's view, created (and its indexes registered) on first use. */
  static of(cluster: Cluster): ClusterView {
    let view = views.get(cluster);
    if (view === undefined) {
      view = new ClusterView(cluster);
      views.set(cluster, view);
    }
    return view;
  }

  /** Pods bound to `nodeName`, terminating ones included. */
  podsOn(nodeName: string): Pod[] {
    return this.pods.indexer.byIndex(podsByNode.name, nodeName);
  }

  node(name: string): Node | undefined {
    return this.nodes.lister.get("", name);
  }

  persistentVolume(name: string): PersistentVolume | undefined {
    return this.persistentVolumes.lister.get("", name);
  }

  claim(namespace: string, name: string): PersistentVolumeClaim | undefined {
    return this.claims.lister.get(namespace, name);
  }

  /** The PVs naming this storage (`disk/disk-1`); usually one. */
  persistentVolumesOf(storageKey: string): PersistentVolume[] {
    return this.persistentVolumes.indexer.byIndex(persistentVolumesByStorage.name, storageKey);
  }

  attachmentsOf(pvName: string): VolumeAttachment[] {
    return this.volumeAttachments.indexer.byIndex(volumeAttachmentsByPersistentVolume.name, pvName);
  }

  /** The storage behind each volume of the pod that names any (claims through their bound PV). */
  storageOf(pod: Pod): PodStorage[] {
    const found: PodStorage[] = [];
    const namespace = pod.metadata?.namespace ?? "";
    for (const volume of pod.spec?.volumes ?? []) {
      const claimName =
        volume.persistentVolumeClaim?.claimName ??
        (volume.ephemeral ? `${pod.metadata?.name ?? ""}-${volume.name}` : undefined);
      if (claimName === undefined) {
        const identity = identityOfInlineVolume(volume);
        if (identity !== undefined) found.push({ volumeName: volume.name, pv: undefined, identity });
        continue;
      }
      const pvName = this.claim(namespace, claimName)?.spec?.volumeName;
      const pv = pvName ? this.persistentVolume(pvName) : undefined;
      if (pv !== undefined) found.push({ volumeName: volume.name, pv, identity: identityOfPersistentVolume(pv) });
    }
    return found;
  }
}

/** The Node's Ready condition is True. A node without a Node object counts as not Ready. */
export function isNodeReady(node: Node | undefined): boolean {
  return (
    node?.status?.conditions?.some((condition) => condition.type === "Ready" && condition.status === "True") ?? false
  );
}

export function hasOutOfServiceTaint(node: Node | undefined): boolean {
  return node?.spec?.taints?.some((taint) => taint.key === taintNodeOutOfService) ?? false;
}

/**
 * Whether the attach/detach controller's force rules (spec §2.7) may act on the node now: it is
 * not Ready (the 6-minute maxWaitForUnmountDuration force detach only applies then) or it carries
 * the out-of-service taint. A healthy node is never force-detached.
 */
export function forceDetachMayApply(node: Node | undefined): boolean {
  return !isNodeReady(node) || hasOutOfServiceTaint(node);
}

/** `Kind/namespace/name` or `Kind/name`: how reports and histories name an API object. */
export function apiObjectName(kind: string, object: { metadata?: { namespace?: string; name?: string } }): string {
  const namespace = object.metadata?.namespace;
  return namespace ? `${kind}/${namespace}/${object.metadata?.name ?? ""}` : `${kind}/${object.metadata?.name ?? ""}`;
}
