/**
 * Validation of the snapshot.storage.k8s.io/v1 kinds: the OpenAPI schemas and CEL rules of the
 * external-snapshotter's CustomResourceDefinitions, worded as kube-apiserver words a custom
 * resource's failures (`spec.source: Invalid value: "object": exactly one of … must be set`,
 * `spec.deletionPolicy: Unsupported value: "Keep": supported values: "Delete", "Retain"`).
 */
import type { FieldCause } from "../errors.ts";
import { checkOneOf } from "./field-checks.ts";
import { invalid, required } from "./field-errors.ts";
import { child } from "./field-path.ts";
import { type JsonObject, readBoolean, readInteger, readObject, readString, readStringMap } from "./json-reader.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";

const snapshotMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };
const clusterMeta: MetaRules = { namespaced: false, nameRule: nameIsDnsSubdomain };
/** The CRDs' enum, in its order. */
const deletionPolicies = ["Delete", "Retain"] as const;

/** A CEL rule's failure: kube-apiserver names the type of the value the rule was evaluated on. */
function ruleFailed(path: string, type: "object" | "string", message: string): FieldCause {
  return invalid(path, type, message);
}

function has(object: JsonObject, field: string): boolean {
  return object[field] !== undefined && object[field] !== null;
}

function requiredObject(parent: JsonObject, field: string, path: string, out: FieldCause[]): JsonObject | undefined {
  if (!has(parent, field)) {
    out.push(required(path));
    return undefined;
  }
  return readObject(parent[field], path, out);
}

function requiredString(parent: JsonObject, field: string, path: string, out: FieldCause[]): string | undefined {
  if (!has(parent, field)) {
    out.push(required(path));
    return undefined;
  }
  return readString(parent[field], path, out);
}

/** `exactly one of a and b must be set`: the CRDs' rule on their two source members. */
function checkExactlyOne(source: JsonObject, first: string, second: string, path: string, out: FieldCause[]): void {
  readString(source[first], child(path, first), out);
  readString(source[second], child(path, second), out);
  if (has(source, first) === has(source, second)) {
    out.push(ruleFailed(path, "object", `exactly one of ${first} and ${second} must be set`));
  }
}

/** The transition rules of a source: each member is immutable and, once set, stays set. */
function checkSourceUpdate(
  source: JsonObject,
  old: JsonObject,
  fields: readonly string[],
  path: string,
  out: FieldCause[],
): void {
  for (const field of fields) {
    if (!has(old, field)) continue;
    if (!has(source, field)) out.push(ruleFailed(path, "object", `${field} is required once set`));
    else if (source[field] !== old[field]) out.push(ruleFailed(child(path, field), "string", `${field} is immutable`));
  }
}

function validateSnapshotError(value: unknown, path: string, out: FieldCause[]): void {
  const error = readObject(value, path, out);
  if (error === undefined) return;
  readString(error.message, child(path, "message"), out);
  readString(error.time, child(path, "time"), out);
}

export function validateVolumeSnapshot(snapshot: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(snapshot.metadata, snapshotMeta, out);
  const spec = requiredObject(snapshot, "spec", "spec", out);
  if (spec !== undefined) {
    const source = requiredObject(spec, "source", "spec.source", out);
    if (source !== undefined)
      checkExactlyOne(source, "volumeSnapshotContentName", "persistentVolumeClaimName", "spec.source", out);
    const className = readString(spec.volumeSnapshotClassName, "spec.volumeSnapshotClassName", out);
    if (className === "") {
      out.push(ruleFailed("spec", "object", "volumeSnapshotClassName must not be the empty string when set"));
    }
  }
  const status = readObject(snapshot.status, "status", out) ?? {};
  readString(status.boundVolumeSnapshotContentName, "status.boundVolumeSnapshotContentName", out);
  readBoolean(status.readyToUse, "status.readyToUse", out);
  readString(status.restoreSize, "status.restoreSize", out);
  validateSnapshotError(status.error, "status.error", out);
}

export function validateVolumeSnapshotUpdate(snapshot: JsonObject, old: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(snapshot.metadata, old.metadata, out);
  validateVolumeSnapshot(snapshot, out);
  const source = readObject(readObject(snapshot.spec, "spec", [])?.source, "spec.source", []);
  const oldSource = readObject(readObject(old.spec, "spec", [])?.source, "spec.source", []);
  if (source !== undefined && oldSource !== undefined) {
    checkSourceUpdate(
      source,
      oldSource,
      ["persistentVolumeClaimName", "volumeSnapshotContentName"],
      "spec.source",
      out,
    );
  }
}

function validateContentStatus(content: JsonObject, out: FieldCause[]): void {
  const status = readObject(content.status, "status", out) ?? {};
  const restoreSize = readInteger(status.restoreSize, "status.restoreSize", out);
  if (restoreSize !== undefined && restoreSize < 0) {
    out.push(
      invalid("status.restoreSize", restoreSize, "status.restoreSize in body should be greater than or equal to 0"),
    );
  }
  readInteger(status.creationTime, "status.creationTime", out);
  readBoolean(status.readyToUse, "status.readyToUse", out);
  readString(status.snapshotHandle, "status.snapshotHandle", out);
  validateSnapshotError(status.error, "status.error", out);
}

function validateSnapshotRef(spec: JsonObject, out: FieldCause[]): void {
  const path = "spec.volumeSnapshotRef";
  const ref = requiredObject(spec, "volumeSnapshotRef", path, out);
  if (ref === undefined) return;
  const name = readString(ref.name, child(path, "name"), out);
  const namespace = readString(ref.namespace, child(path, "namespace"), out);
  if (name === undefined || namespace === undefined) {
    out.push(
      ruleFailed(path, "object", "both spec.volumeSnapshotRef.name and spec.volumeSnapshotRef.namespace must be set"),
    );
  }
}

export function validateVolumeSnapshotContent(content: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(content.metadata, clusterMeta, out);
  const spec = requiredObject(content, "spec", "spec", out);
  if (spec !== undefined) {
    const policy = requiredString(spec, "deletionPolicy", "spec.deletionPolicy", out);
    checkOneOf(policy, deletionPolicies, "spec.deletionPolicy", out);
    requiredString(spec, "driver", "spec.driver", out);
    const source = requiredObject(spec, "source", "spec.source", out);
    if (source !== undefined) checkExactlyOne(source, "volumeHandle", "snapshotHandle", "spec.source", out);
    readString(spec.volumeSnapshotClassName, "spec.volumeSnapshotClassName", out);
    readString(spec.sourceVolumeMode, "spec.sourceVolumeMode", out);
    validateSnapshotRef(spec, out);
  }
  validateContentStatus(content, out);
}

export function validateVolumeSnapshotContentUpdate(content: JsonObject, old: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(content.metadata, old.metadata, out);
  validateVolumeSnapshotContent(content, out);
  const spec = readObject(content.spec, "spec", []) ?? {};
  const oldSpec = readObject(old.spec, "spec", []) ?? {};
  const source = readObject(spec.source, "spec.source", []);
  const oldSource = readObject(oldSpec.source, "spec.source", []);
  if (source !== undefined && oldSource !== undefined) {
    checkSourceUpdate(source, oldSource, ["volumeHandle", "snapshotHandle"], "spec.source", out);
  }
  checkSourceUpdate(spec, oldSpec, ["sourceVolumeMode"], "spec", out);
}

export function validateVolumeSnapshotClass(snapshotClass: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(snapshotClass.metadata, clusterMeta, out);
  requiredString(snapshotClass, "driver", "driver", out);
  checkOneOf(
    requiredString(snapshotClass, "deletionPolicy", "deletionPolicy", out),
    deletionPolicies,
    "deletionPolicy",
    out,
  );
  readStringMap(snapshotClass.parameters, "parameters", out);
}

export function validateVolumeSnapshotClassUpdate(snapshotClass: JsonObject, old: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(snapshotClass.metadata, old.metadata, out);
  validateVolumeSnapshotClass(snapshotClass, out);
}
