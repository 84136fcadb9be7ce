/**
 * `metadata.managedFields`: which manager owns which fields, one entry per manager, operation
 * (Apply or Update) and subresource, with the fields as FieldsV1. Decoded into FieldSets for the
 * apply and update algorithms and encoded back in Kubernetes' order (Apply entries first, then by
 * time, manager, apiVersion, subresource).
 */

import { errorMessage } from "../../runtime/error-message.ts";
import { badRequest, isApiError } from "../errors.ts";
import type { KObject } from "../objects.ts";
import { FieldSet } from "./field-set.ts";

type ManagedOperation = "Apply" | "Update";

export interface ManagerEntry {
  manager: string;
  operation: ManagedOperation;
  apiVersion: string;
  /** RFC 3339, seconds; when the manager last changed the object. */
  time?: string;
  subresource?: string;
  fields: FieldSet;
}

/** The entries by manager identity; a manager that applies and updates has two. */
export type ManagedFields = Map<string, ManagerEntry>;

export function managerKey(manager: string, operation: ManagedOperation, subresource?: string): string {
  return JSON.stringify([manager, operation, subresource ?? ""]);
}

interface EncodedEntry {
  manager?: unknown;
  operation?: unknown;
  apiVersion?: unknown;
  time?: unknown;
  fieldsType?: unknown;
  fieldsV1?: unknown;
  subresource?: unknown;
}

function decodeEntry(entry: EncodedEntry, index: number): ManagerEntry {
  const where = `metadata.managedFields[${index}]`;
  if (typeof entry.manager !== "string") throw badRequest(`${where}.manager must be a string`);
  if (entry.operation !== "Apply" && entry.operation !== "Update") {
    throw badRequest(`${where}.operation must be Apply or Update, not ${JSON.stringify(entry.operation)}`);
  }
  if (entry.fieldsType !== undefined && entry.fieldsType !== "FieldsV1") {
    throw badRequest(`${where}.fieldsType must be FieldsV1, not ${JSON.stringify(entry.fieldsType)}`);
  }
  let fields: FieldSet;
  try {
    fields = FieldSet.fromFieldsV1(entry.fieldsV1 ?? {});
  } catch (error) {
    throw badRequest(`${where}.fieldsV1 is not valid: ${errorMessage(error)}`);
  }
  return {
    manager: entry.manager,
    operation: entry.operation,
    apiVersion: typeof entry.apiVersion === "string" ? entry.apiVersion : "",
    ...(typeof entry.time === "string" ? { time: entry.time } : {}),
    ...(typeof entry.subresource === "string" && entry.subresource !== "" ? { subresource: entry.subresource } : {}),
    fields,
  };
}

export function decodeManagedFields(object: KObject | undefined): ManagedFields {
  const managed: ManagedFields = new Map();
  const entries = object?.metadata?.managedFields ?? [];
  entries.forEach((entry, index) => {
    const decoded = decodeEntry(entry as EncodedEntry, index);
    managed.set(managerKey(decoded.manager, decoded.operation, decoded.subresource), decoded);
  });
  return managed;
}

/**
 * The managers of a stored object. Entries the server cannot read (written by something that
 * bypassed it) are dropped rather than making every later write fail, as kube-apiserver resets
 * managed fields it cannot decode.
 */
export function decodeStoredManagedFields(object: KObject | undefined): ManagedFields {
  try {
    return decodeManagedFields(object);
  } catch (error) {
    if (!isApiError(error, "BadRequest")) throw error;
    return new Map();
  }
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function entryOrder(a: ManagerEntry, b: ManagerEntry): number {
  return (
    compareText(a.operation, b.operation) ||
    compareText(a.time ?? "", b.time ?? "") ||
    compareText(a.manager, b.manager) ||
    compareText(a.apiVersion, b.apiVersion) ||
    compareText(a.subresource ?? "", b.subresource ?? "")
  );
}

type EncodedManagedFields = NonNullable<NonNullable<KObject["metadata"]>["managedFields"]>;

/** The managedFields list to store; entries that own nothing are left out, as Kubernetes drops them. */
export function encodeManagedFields(managed: ManagedFields): EncodedManagedFields {
  return [...managed.values()]
    .filter((entry) => !entry.fields.isEmpty())
    .sort(entryOrder)
    .map((entry) => ({
      manager: entry.manager,
      operation: entry.operation,
      apiVersion: entry.apiVersion,
      ...(entry.time === undefined ? {} : { time: entry.time }),
      fieldsType: "FieldsV1",
      fieldsV1: entry.fields.toFieldsV1(),
      ...(entry.subresource === undefined ? {} : { subresource: entry.subresource }),
    }));
}

/** A manager as apply conflicts name it: `"kubectl" with subresource "status" using apps/v1 at <time>`. */
export function describeManager(entry: ManagerEntry): string {
  let text = JSON.stringify(entry.manager);
  if (entry.subresource !== undefined) text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  if (entry.operation === "Update") {
    text += ` using ${entry.apiVersion}`;
    if (entry.time !== undefined) text += ` at ${entry.time}`;
  }
  return text;
}
