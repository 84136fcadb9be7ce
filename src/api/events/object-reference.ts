/**
 * client-go's `reference.GetReference`: the ObjectReference an Event points at (its
 * `involvedObject`), taken from the object itself.
 */
import type { ObjectReference } from "kubernetes-types/core/v1.js";
import type { ApiObject } from "../client/client.ts";
import { apiVersionOf, resourceForKind } from "../resources.ts";

export type { ObjectReference };

/**
 * The reference to `object`: kind, apiVersion, namespace, name, uid and resourceVersion, plus
 * `fieldPath` for a part of it (the kubelet names a container as `spec.containers{name}`).
 * Throws when the object has no kind or no name, since an Event about it could not be found again.
 */
export function referenceTo(object: ApiObject, fieldPath?: string): ObjectReference {
  const kind = object.kind;
  const name = object.metadata?.name;
  if (!kind) throw new Error(`cannot make an object reference: kind is empty (object "${name ?? ""}")`);
  if (!name) throw new Error(`cannot make an object reference: metadata.name is empty (kind ${kind})`);
  const registered = resourceForKind(kind);
  const apiVersion = object.apiVersion ?? (registered ? apiVersionOf(registered) : undefined);
  const { namespace, uid, resourceVersion } = object.metadata ?? {};
  // Fields in the order Kubernetes prints them.
  const reference: ObjectReference = { kind };
  if (namespace) reference.namespace = namespace;
  reference.name = name;
  if (uid) reference.uid = uid;
  if (apiVersion) reference.apiVersion = apiVersion;
  if (resourceVersion) reference.resourceVersion = resourceVersion;
  if (fieldPath) reference.fieldPath = fieldPath;
  return reference;
}

/**
 * True when `a` and `b` have the same fields, in the same order, with the same values: one can
 * stand for the other in a stored Event without changing a byte of its JSON.
 */
export function sameReference(a: Readonly<ObjectReference>, b: Readonly<ObjectReference>): boolean {
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  for (let i = 0; i < aKeys.length; i++) {
    const key = aKeys[i] as keyof ObjectReference;
    if (key !== bKeys[i] || a[key] !== b[key]) return false;
  }
  return true;
}
