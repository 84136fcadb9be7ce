/**
 * The finalizer rules both protection controllers share (pkg/controller/volume/protectionutil): an
 * object being deleted that still carries the finalizer is a deletion candidate; an object not
 * being deleted should carry it. Adding is done here because kvol has no admission plugin yet that
 * adds it at creation, as Kubernetes' does.
 */

import type { ApiObject, ResourceClient } from "../../../api/client/client.ts";
import { clone } from "../../../api/client/copy.ts";
import { hasFinalizer } from "../annotations.ts";

export function isDeletionCandidate(object: ApiObject, finalizer: string): boolean {
  return object.metadata?.deletionTimestamp != null && hasFinalizer(object, finalizer);
}

export function needsFinalizer(object: ApiObject, finalizer: string): boolean {
  return object.metadata?.deletionTimestamp == null && !hasFinalizer(object, finalizer);
}

/** Writes `object` with `finalizer` added; a Conflict is thrown so the queue retries with backoff. */
export async function addFinalizer<T extends ApiObject>(
  resource: ResourceClient<T>,
  object: T,
  finalizer: string,
): Promise<T> {
  const draft = clone(object);
  draft.metadata = { ...draft.metadata, finalizers: [...(draft.metadata?.finalizers ?? []), finalizer] };
  return resource.update(draft as T);
}

/** Writes `object` without `finalizer`; the API removes the object once its last finalizer is gone. */
export async function removeFinalizer<T extends ApiObject>(
  resource: ResourceClient<T>,
  object: T,
  finalizer: string,
): Promise<T> {
  const draft = clone(object);
  draft.metadata = {
    ...draft.metadata,
    finalizers: (draft.metadata?.finalizers ?? []).filter((name) => name !== finalizer),
  };
  return resource.update(draft as T);
}
