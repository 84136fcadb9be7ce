/**
 * Server-side apply (`application/apply-patch+yaml`), as structured-merge-diff's Updater.Apply:
 * 1. the applied configuration is merged into the live object (or becomes the object when none
 *    exists);
 * 2. fields the manager applied last time and leaves out now are removed, unless another manager
 *    owns them (or something below them);
 * 3. every field the merge changes that another manager owns is a conflict: 409, unless `force`,
 *    which moves the ownership to the applier;
 * 4. the manager's Apply entry becomes exactly the set of fields in its configuration; other
 *    managers lose what the change removed.
 * An object that has never been written with managed fields gets a `before-first-apply` manager
 * owning everything it holds, so a first apply cannot silently take over existing values.
 */

import { badRequest } from "../errors.ts";
import type { KObject } from "../objects.ts";
import { setOwnField } from "../own-field.ts";
import { jsonEqual } from "../store/json-equal.ts";
import { applyConflictError, type Conflict } from "./apply-conflicts.ts";
import { mergeApplied, removeField } from "./apply-merge.ts";
import type { FieldSet } from "./field-set.ts";
import { appliedFieldSet, compareObjects } from "./field-walk.ts";
import { decodeStoredManagedFields, encodeManagedFields, type ManagedFields, managerKey } from "./managed-fields.ts";
import type { PatchSchemaNode } from "./patch-schema.ts";
import { type TrackingScope, trackedView } from "./tracked-fields.ts";

const beforeFirstApplyManager = "before-first-apply";

export interface ApplyInput {
  /** The stored object; undefined when the apply creates it. */
  live: KObject | undefined;
  config: KObject;
  manager: string;
  force: boolean;
  schema: PatchSchemaNode | undefined;
  /** The apiVersion recorded in managed field entries. */
  apiVersion: string;
  scope: TrackingScope;
  /** RFC 3339 time stamped on the entries this apply changes. */
  now: string;
  /**
   * The kind's defaulting, run on the merged object before it is compared with the live one: an
   * applied configuration leaves out what the server defaults, and a default is not a change.
   */
  defaults?: (object: KObject) => KObject;
}

type JsonMap = Record<string, unknown>;

/** The configuration without nulls: a null in an applied configuration sets nothing. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== null).map(withoutNulls);
  if (value === null || typeof value !== "object") return value;
  const result: JsonMap = {};
  for (const [name, child] of Object.entries(value)) if (child !== null) setOwnField(result, name, withoutNulls(child));
  return result;
}

function managersBeforeApply(input: ApplyInput): ManagedFields {
  const managers = decodeStoredManagedFields(input.live);
  if (input.live === undefined || managers.size > 0) return managers;
  const fields = compareObjects(undefined, trackedView(input.live, input.scope), input.schema).added;
  managers.set(managerKey(beforeFirstApplyManager, "Update"), {
    manager: beforeFirstApplyManager,
    operation: "Update",
    apiVersion: input.apiVersion,
    time: input.now,
    fields,
  });
  return managers;
}

/** Removes what `applierKey` gave up (`previous` minus `applied`) where no other manager holds it. */
function prune(
  merged: JsonMap,
  previous: FieldSet,
  applied: FieldSet,
  managers: ManagedFields,
  applierKey: string,
  schema: PatchSchemaNode | undefined,
): JsonMap {
  let result = merged;
  for (const path of previous.difference(applied).paths()) {
    if (applied.hasAtOrBelow(path)) continue;
    const ownedElsewhere = [...managers].some(([key, entry]) => key !== applierKey && entry.fields.hasAtOrBelow(path));
    if (!ownedElsewhere) result = removeField(result, path, schema);
  }
  return result;
}

function findConflicts(managers: ManagedFields, applierKey: string, changed: FieldSet): Conflict[] {
  const conflicts: Conflict[] = [];
  for (const [key, owner] of managers) {
    if (key === applierKey) continue;
    for (const path of owner.fields.intersection(changed).paths()) conflicts.push({ owner, path });
  }
  return conflicts;
}

/** Other managers lose what the apply removed, and (when forced) the fields it took from them. */
function releaseFields(
  managers: ManagedFields,
  applierKey: string,
  removed: FieldSet,
  taken: readonly Conflict[],
): void {
  for (const [key, entry] of managers) {
    if (key === applierKey) continue;
    const lost = removed.copy();
    for (const conflict of taken) if (conflict.owner === entry) lost.insert(conflict.path);
    entry.fields = entry.fields.difference(lost);
  }
}

/** The object to store after the apply, its managedFields updated. Throws 409 on conflicts without force. */
export function serverSideApply(input: ApplyInput): KObject {
  const sentManagedFields = input.config.metadata?.managedFields;
  if (sentManagedFields !== undefined && sentManagedFields !== null) {
    throw badRequest("metadata.managedFields must be nil in an applied configuration");
  }
  const config = withoutNulls(input.config) as JsonMap;
  const applied = appliedFieldSet(trackedView(config as KObject, input.scope), input.schema);
  const managers = managersBeforeApply(input);
  const key = managerKey(input.manager, "Apply", input.scope.subresource);
  const previous = managers.get(key);
  let merged = mergeApplied(input.live ?? {}, config, input.schema) as JsonMap;
  if (previous !== undefined) merged = prune(merged, previous.fields, applied, managers, key, input.schema);
  if (input.defaults !== undefined) merged = input.defaults(merged as KObject) as JsonMap;

  const liveView = trackedView(input.live, input.scope);
  const mergedView = trackedView(merged as KObject, input.scope);
  const comparison = compareObjects(liveView, mergedView, input.schema);
  const conflicts = findConflicts(managers, key, comparison.added.union(comparison.modified));
  if (conflicts.length > 0 && !input.force) throw applyConflictError(conflicts);
  releaseFields(managers, key, comparison.removed, conflicts);

  const changed = !jsonEqual(liveView, mergedView) || previous === undefined || !previous.fields.equals(applied);
  const time = changed ? input.now : previous?.time;
  managers.set(key, {
    manager: input.manager,
    operation: "Apply",
    apiVersion: input.apiVersion,
    ...(time === undefined ? {} : { time }),
    ...(input.scope.subresource === undefined ? {} : { subresource: input.scope.subresource }),
    fields: applied,
  });
  const metadata = { ...(merged.metadata as JsonMap | undefined), managedFields: encodeManagedFields(managers) };
  return { ...merged, metadata } as KObject;
}
