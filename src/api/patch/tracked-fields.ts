/**
 * The part of an object whose fields managers own. Type and identity fields and the server's own
 * metadata are never owned (Kubernetes strips them before tracking), and a write to the main
 * resource of a kind with a status subresource cannot own status, nor a status write the rest.
 */

import type { KObject } from "../objects.ts";
import { setOwnField } from "../own-field.ts";

type JsonMap = Record<string, unknown>;

const untrackedMetadata = new Set([
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
  "selfLink",
]);

export interface TrackingScope {
  /** The kind has a status subresource. */
  hasStatus: boolean;
  /** `status` when the write goes to the status subresource. */
  subresource?: string;
}

export function trackedView(object: KObject | undefined, scope: TrackingScope): JsonMap {
  if (object === undefined) return {};
  if (scope.subresource === "status") return object.status === undefined ? {} : { status: object.status };
  const view: JsonMap = {};
  for (const [name, value] of Object.entries(object)) {
    if (value === undefined || name === "apiVersion" || name === "kind") continue;
    if (name === "status" && scope.hasStatus) continue;
    if (name !== "metadata") {
      setOwnField(view, name, value);
      continue;
    }
    const metadata: JsonMap = {};
    for (const [field, fieldValue] of Object.entries(value as JsonMap)) {
      if (fieldValue !== undefined && !untrackedMetadata.has(field)) setOwnField(metadata, field, fieldValue);
    }
    if (Object.keys(metadata).length > 0) view.metadata = metadata;
  }
  return view;
}
