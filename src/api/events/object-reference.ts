/**
 * client-go's `reference.GetReference`: the ObjectReference an Event points at (its
 * `involvedObject`), taken from the object itself.
 */
import type { ObjectReference } from "kubernetes-types/core/v1.js";
import type { ApiObject } from "../client/client.ts";
import { apiVersionOf, resourceForKind } from "../resources.ts";

export type { ObjectReference };

/**
 * The fields of a reference to a whole object, in the order Kubernetes prints them and referenceTo
 * writes them: two references are the same JSON only with the same fields in this order.
 */
export const objectReferenceFields: readonly (keyof ObjectReference)[] = [
  "kind",
  "namespace",
  "name",
  "uid",
  "apiVersion",
  "resourceVersion",
];
/** The same for a reference to a part of an object (a container), which adds `fieldPath`. */
export const partReferenceFields: readonly (keyof ObjectReference)[] = [...objectReferenceFields, "fieldPath"];

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
  // Fields in the order Kubernetes prints them (partReferenceFields), the empty ones left out; set
  // one by one, as every Event of every recorder makes one, with no object of all values first.
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
 * stand for the other in a stored Event without changing a byte of its JSON. `aFields` is
 * `Object.keys(a)`, for a caller that compares many references against one and lists its fields
 * once: `b`'s fields are walked without being listed, so a comparison allocates nothing.
 */
export function sameReference(
  a: Readonly<ObjectReference>,
  b: Readonly<ObjectReference>,
  aFields: readonly string[] = Object.keys(a),
): boolean {
  let index = 0;
  for (const field in b) {
    const key = field as keyof ObjectReference;
    if (field !== aFields[index] || a[key] !== b[key]) return false;
    index++;
  }
  return index === aFields.length;
}
