/**
 * Owner references (metav1.OwnerReference). A workload controller marks what it creates with a
 * reference to itself carrying `controller: true`, and only ever manages objects whose controller
 * reference points at its own uid — a pod from a deleted and recreated set of the same name is not
 * the new set's pod.
 */
import type { ApiObject } from "../../api/client/client.ts";
import type { Lister } from "../../api/informer/lister.ts";
import type { ObjectMeta } from "../../api/objects.ts";

export type OwnerReference = NonNullable<ObjectMeta["ownerReferences"]>[number];

/** The reference marking `owner` as the managing controller of a dependent. */
export function newControllerRef(owner: ApiObject, apiVersion: string, kind: string): OwnerReference {
  const metadata = owner.metadata;
  if (!metadata?.name || !metadata.uid) {
    throw new Error(`newControllerRef: the ${kind} needs metadata.name and metadata.uid (was it read from the API?)`);
  }
  return { apiVersion, kind, name: metadata.name, uid: metadata.uid, controller: true, blockOwnerDeletion: true };
}

/** The owner reference with `controller: true`, if any (metav1.GetControllerOf). */
function controllerRefOf(object: ApiObject): OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((reference) => reference.controller === true);
}

/** True when `object` is managed by the owner with this uid. */
export function isControlledBy(object: ApiObject, ownerUid: string | undefined): boolean {
  return ownerUid !== undefined && controllerRefOf(object)?.uid === ownerUid;
}

/**
 * The queue key (`namespace/name`) of the `kind` controlling `object`, when that controller is in
 * the cache with the referenced uid (controller.resolveControllerRef); otherwise undefined.
 */
export function controllerKeyOf<T extends ApiObject>(
  object: ApiObject,
  kind: string,
  owners: Lister<T>,
): string | undefined {
  const reference = controllerRefOf(object);
  if (reference === undefined || reference.kind !== kind) return undefined;
  const namespace = object.metadata?.namespace ?? "";
  const owner = owners.get(namespace, reference.name);
  if (owner?.metadata?.uid !== reference.uid) return undefined;
  return `${namespace}/${reference.name}`;
}
