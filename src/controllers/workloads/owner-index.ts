/**
 * Objects by the uids of their owners, so "the pods of this ReplicaSet" or "everything this
 * Deployment owns" is an index lookup, never a scan of every pod. The workload controllers and the
 * garbage collector share one index per informer.
 */
import type { ApiObject } from "../../api/client/client.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import { isControlledBy } from "./controller-ref.ts";

const ownerUidIndexName = "workloads/by-owner-uid";

const none: readonly string[] = [];

function ownerUids(object: ApiObject): readonly string[] {
  const references = object.metadata?.ownerReferences;
  if (references === undefined || references.length === 0) return none;
  return references.map((reference) => reference.uid);
}

/** Adds the owner index to `informer` unless another controller already did. */
export function ensureOwnerIndex<T extends ApiObject>(informer: SharedInformer<T>): void {
  if (!informer.indexer.hasIndex(ownerUidIndexName)) {
    informer.addIndexers({ [ownerUidIndexName]: ownerUids });
  }
}

/** Cached objects listing `ownerUid` among their owners. */
export function ownedBy<T extends ApiObject>(informer: SharedInformer<T>, ownerUid: string): T[] {
  return informer.indexer.byIndex(ownerUidIndexName, ownerUid);
}

/** Cached objects whose managing controller is the owner with `ownerUid`. */
export function controlledBy<T extends ApiObject>(informer: SharedInformer<T>, ownerUid: string): T[] {
  return ownedBy(informer, ownerUid).filter((object) => isControlledBy(object, ownerUid));
}
