/**
 * Ready-made indexes for the lookups the volume controllers and the kubelet make in every loop
 * (Kubernetes keeps the same ones in its controllers: `pkg/controller/volume/common`, the ADC's
 * `podsByNode`, the PV controller's claim index). Register them with `informer.addIndexers(...)`
 * and query with `indexer.byIndex(name, value)`.
 */
import type { Event, PersistentVolume, Pod, VolumeAttachment } from "../objects.ts";
import { type IndexFunc, readsOnlySpec } from "./indexer.ts";

/** One index: its name (use it with `byIndex`) and how objects are filed. */
export interface NamedIndex<T> {
  readonly name: string;
  readonly indexFunc: IndexFunc<T>;
}

const none: readonly string[] = [];

/** Pods by the node they are bound to (`spec.nodeName`); unscheduled pods are in no bucket. */
export const podsByNode: NamedIndex<Pod> = {
  name: "pods-by-node",
  indexFunc: readsOnlySpec((pod: Pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : none)),
};

/**
 * Pods by the claims they use, as `<namespace>/<claimName>`: every `persistentVolumeClaim` volume,
 * and for every generic ephemeral volume the claim Kubernetes creates for it, `<pod>-<volume>`.
 */
export const podsByClaim: NamedIndex<Pod> = {
  name: "pods-by-claim",
  indexFunc: readsOnlySpec((pod: Pod) => {
    const volumes = pod.spec?.volumes;
    if (volumes === undefined || volumes.length === 0) return none;
    const namespace = pod.metadata?.namespace ?? "";
    const claims: string[] = [];
    for (const volume of volumes) {
      const claimName = volume.persistentVolumeClaim?.claimName;
      if (claimName) claims.push(`${namespace}/${claimName}`);
      else if (volume.ephemeral) claims.push(`${namespace}/${pod.metadata?.name ?? ""}-${volume.name}`);
    }
    return claims;
  }),
};

/** PersistentVolumes by the claim they are bound or reserved to (`spec.claimRef`), as `<namespace>/<name>`. */
export const persistentVolumesByClaim: NamedIndex<PersistentVolume> = {
  name: "persistentvolumes-by-claim",
  indexFunc: readsOnlySpec((pv: PersistentVolume) => {
    const claimRef = pv.spec?.claimRef;
    return claimRef?.name ? [`${claimRef.namespace ?? ""}/${claimRef.name}`] : none;
  }),
};

/** VolumeAttachments by the node they attach to (`spec.nodeName`). */
export const volumeAttachmentsByNode: NamedIndex<VolumeAttachment> = {
  name: "volumeattachments-by-node",
  indexFunc: readsOnlySpec((attachment: VolumeAttachment) =>
    attachment.spec?.nodeName ? [attachment.spec.nodeName] : none,
  ),
};

/** VolumeAttachments by the PersistentVolume they attach (`spec.source.persistentVolumeName`); inline volumes have none. */
export const volumeAttachmentsByPersistentVolume: NamedIndex<VolumeAttachment> = {
  name: "volumeattachments-by-persistentvolume",
  indexFunc: readsOnlySpec((attachment: VolumeAttachment) => {
    const pvName = attachment.spec?.source?.persistentVolumeName;
    return pvName ? [pvName] : none;
  }),
};

/** Events by the uid of the object they are about (`involvedObject.uid`). */
export const eventsByInvolvedObjectUid: NamedIndex<Event> = {
  name: "events-by-involved-object-uid",
  indexFunc: (event) => (event.involvedObject?.uid ? [event.involvedObject.uid] : none),
};

/** The `{ name: indexFunc }` record `addIndexers` and the Indexer constructor take. */
export function indexers<T>(...indexes: NamedIndex<T>[]): Record<string, IndexFunc<T>> {
  return Object.fromEntries(indexes.map((index) => [index.name, index.indexFunc]));
}

/** What `ensureIndex` needs of an informer (a SharedInformer has it). */
interface IndexableInformer<T> {
  readonly indexer: { hasIndex(name: string): boolean };
  addIndexers(indexers: Readonly<Record<string, IndexFunc<T>>>): void;
}

/** Adds `index` to a shared informer unless another component sharing it already did. */
export function ensureIndex<T>(informer: IndexableInformer<T>, index: NamedIndex<T>): void {
  if (!informer.indexer.hasIndex(index.name)) informer.addIndexers(indexers(index));
}
