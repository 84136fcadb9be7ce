/**
 * The managed fields of a write that is not an apply (create, update, JSON/merge/strategic
 * patch), as structured-merge-diff's Updater.Update: the writer's Update entry gains every field
 * it added or changed and loses what it removed; every other manager loses the fields the write
 * changed or removed (an update never conflicts, it takes ownership).
 */

import type { KObject } from "../objects.ts";
import { setOwnField } from "../own-field.ts";
import { jsonEqual } from "../store/json-equal.ts";
import { compareObjects } from "./field-walk.ts";
import {
  decodeManagedFields,
  decodeStoredManagedFields,
  encodeManagedFields,
  type ManagedFields,
  managerKey,
} from "./managed-fields.ts";
import type { PatchSchemaNode } from "./patch-schema.ts";
import { type TrackingScope, trackedView } from "./tracked-fields.ts";

interface UpdateInput {
  /** The stored object; undefined for a create. */
  live: KObject | undefined;
  /** The object the write will store. */
  next: KObject;
  manager: string;
  schema: PatchSchemaNode | undefined;
  apiVersion: string;
  scope: TrackingScope;
  now: string;
}

/**
 * The managers to start from: the stored ones, unless the request carries its own list (a
 * client that rewrites managedFields on purpose). An empty list keeps the stored ones, as in
 * Kubernetes, so a client unaware of the field cannot wipe it by accident.
 */
function startingManagers(input: UpdateInput): ManagedFields {
  const sent = input.next.metadata?.managedFields;
  const stored = input.live?.metadata?.managedFields;
  if (sent === undefined || sent.length === 0 || jsonEqual(sent, stored)) return decodeStoredManagedFields(input.live);
  return decodeManagedFields(input.next);
}

/**
 * What a create is compared with: Kubernetes compares with the empty Go object of the kind, in
 * which the top-level structs (metadata, spec) exist but hold nothing, so a create does not own
 * them as such, only what it puts in them.
 */
function emptyObjectOfKind(created: Record<string, unknown>): Record<string, unknown> {
  const skeleton: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(created)) {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) setOwnField(skeleton, name, {});
  }
  return skeleton;
}

/** `next` with its managedFields brought up to date for this write. */
export function recordUpdate(input: UpdateInput): KObject {
  const managers = startingManagers(input);
  const after = trackedView(input.next, input.scope);
  const before = input.live === undefined ? emptyObjectOfKind(after) : trackedView(input.live, input.scope);
  const { added, modified, removed } = compareObjects(before, after, input.schema);
  const key = managerKey(input.manager, "Update", input.scope.subresource);
  const others = [...managers].filter(([other]) => other !== key);
  if (others.length > 0) {
    const taken = added.union(modified).union(removed);
    for (const [, entry] of others) entry.fields = entry.fields.difference(taken);
  }
  const previous = managers.get(key);
  // A first write by this manager (every create) owns exactly what it added and modified.
  const fields =
    previous === undefined
      ? modified.isEmpty()
        ? added
        : added.union(modified)
      : previous.fields.difference(removed).union(added).union(modified);
  const changed = previous === undefined || !previous.fields.equals(fields) || !jsonEqual(before, after);
  const time = changed ? input.now : previous?.time;
  managers.set(key, {
    manager: input.manager,
    operation: "Update",
    apiVersion: input.apiVersion,
    ...(time === undefined ? {} : { time }),
    ...(input.scope.subresource === undefined ? {} : { subresource: input.scope.subresource }),
    fields,
  });
  const managedFields = encodeManagedFields(managers);
  const metadata = { ...input.next.metadata, managedFields: managedFields.length > 0 ? managedFields : undefined };
  return { ...input.next, metadata };
}
