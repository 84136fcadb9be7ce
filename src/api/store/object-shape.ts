/**
 * Building a stored object's top level and metadata: Kubernetes' field order (apiVersion, kind,
 * metadata, then the rest; metadata's own order as kubectl prints it), only the fields ObjectMeta
 * has (kube-apiserver prunes unknown ones), and object literals of one shape, which keeps writes
 * cheap and every stored object's metadata fast to read.
 */

import type { KObject, ObjectMeta } from "../objects.ts";
import { setOwnField } from "../own-field.ts";

export type MutableMeta = { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] };

/** The metadata fields the API server owns; everything else comes from the request. */
interface SystemMeta {
  name: string | undefined;
  namespace: string | undefined;
  uid: string | undefined;
  generation: number | undefined;
  creationTimestamp: string | undefined;
  deletionTimestamp: string | undefined;
  deletionGracePeriodSeconds: number | undefined;
}

/** The request's metadata with the system fields replaced; resourceVersion is left for the backend to stamp. */
export function buildMetadata(requested: ObjectMeta | undefined, system: SystemMeta): MutableMeta {
  const user = requested ?? {};
  return {
    name: system.name,
    generateName: user.generateName,
    namespace: system.namespace,
    uid: system.uid,
    resourceVersion: undefined,
    generation: system.generation,
    creationTimestamp: system.creationTimestamp,
    deletionTimestamp: system.deletionTimestamp,
    deletionGracePeriodSeconds: system.deletionGracePeriodSeconds,
    labels: user.labels,
    annotations: user.annotations,
    ownerReferences: user.ownerReferences,
    finalizers: user.finalizers,
    managedFields: user.managedFields,
  };
}

/** `input`'s fields under the given type fields and metadata (which win over the input's own). */
export function withTypeAndMetadata<M extends ObjectMeta>(
  apiVersion: string,
  kind: string,
  metadata: M,
  input: KObject,
): KObject & { metadata: M } {
  const object: KObject & { metadata: M } = { apiVersion, kind, metadata };
  for (const key in input) {
    if (key !== "apiVersion" && key !== "kind" && key !== "metadata") setOwnField(object, key, input[key]);
  }
  return object;
}
