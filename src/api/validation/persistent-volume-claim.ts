/**
 * PersistentVolumeClaim validation (core's ValidatePersistentVolumeClaim and its update rules). The
 * claim spec is also checked inside StatefulSet volumeClaimTemplates and ephemeral volumes.
 */

import type { FieldCause } from "../errors.ts";
import type { Quantity } from "../quantity.ts";
import { checkDnsLabel, checkDnsSubdomain, checkOneOf, immutableMessage } from "./field-checks.ts";
import { forbidden, invalid, notSupported, required } from "./field-errors.ts";
import { child, key } from "./field-path.ts";
import { type JsonObject, readObject, readString, readStringList } from "./json-reader.ts";
import { validateLabelSelector } from "./labels.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import {
  type MetaRules,
  validateChangedObjectMeta,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "./object-meta.ts";
import { checkNonNegativeQuantity, checkPositiveQuantity, readQuantity } from "./quantity-field.ts";
import { canonicalResourceList, differingFields, semanticEqual } from "./semantic-equal.ts";
import { specUnchanged, specUnchangedBut } from "./unchanged-spec.ts";

/** Sorted as Kubernetes lists them in its "supported values" message. */
const accessModes = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"] as const;
export const volumeModes = ["Block", "Filesystem"] as const;
const defaultVolumeMode = "Filesystem";
const storageResource = "storage";
const boundPhase = "Bound";
/** The storage class annotation that predates spec.storageClassName. */
const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";
const claimMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };

/** Access modes of a claim or a volume: known values, and ReadWriteOncePod alone. */
export function validateAccessModes(modes: readonly string[], path: string, out: FieldCause[]): void {
  let readWriteOncePod = false;
  let other = false;
  for (const mode of modes) {
    if (!(accessModes as readonly string[]).includes(mode)) out.push(notSupported(path, mode, accessModes));
    else if (mode === "ReadWriteOncePod") readWriteOncePod = true;
    else other = true;
  }
  if (readWriteOncePod && other) out.push(forbidden(path, "may not use ReadWriteOncePod with other access modes"));
}

/** The storage request, reported at `spec.resources[storage]` as Kubernetes reports it. */
function validateStorageRequest(requests: JsonObject, specPath: string, out: FieldCause[]): void {
  const storagePath = key(child(specPath, "resources"), storageResource);
  if (requests[storageResource] === undefined || requests[storageResource] === null) {
    out.push(required(storagePath));
    return;
  }
  const storage = readQuantity(requests[storageResource], storagePath, out);
  if (storage !== undefined) checkPositiveQuantity(storage, storagePath, out);
}

/** Every quantity of a resource list except `skipped` (checked on its own): valid and not negative. */
function checkResourceQuantities(list: JsonObject, listPath: string, skipped: string, out: FieldCause[]): void {
  for (const [resourceName, value] of Object.entries(list)) {
    if (resourceName === skipped) continue;
    const path = key(listPath, resourceName);
    const quantity = readQuantity(value, path, out);
    if (quantity !== undefined) checkNonNegativeQuantity(quantity, path, out);
  }
}

function validateResources(spec: JsonObject, specPath: string, out: FieldCause[]): void {
  const resourcesPath = child(specPath, "resources");
  const resources = readObject(spec.resources, resourcesPath, out) ?? {};
  const requestsPath = child(resourcesPath, "requests");
  const limitsPath = child(resourcesPath, "limits");
  const requests = readObject(resources.requests, requestsPath, out) ?? {};
  const limits = readObject(resources.limits, limitsPath, out) ?? {};
  validateStorageRequest(requests, specPath, out);
  checkResourceQuantities(requests, requestsPath, storageResource, out);
  checkResourceQuantities(limits, limitsPath, "", out);
}

function validateDataSource(source: JsonObject, path: string, out: FieldCause[]): void {
  const name = readString(source.name, child(path, "name"), out) ?? "";
  const kind = readString(source.kind, child(path, "kind"), out) ?? "";
  const apiGroup = readString(source.apiGroup, child(path, "apiGroup"), out) ?? "";
  if (name === "") out.push(required(child(path, "name")));
  if (kind === "") out.push(required(child(path, "kind")));
  if (apiGroup === "" && kind !== "PersistentVolumeClaim") {
    out.push(invalid(path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  if (apiGroup !== "") checkDnsSubdomain(apiGroup, child(path, "apiGroup"), out);
  const namespace = readString(source.namespace, child(path, "namespace"), out) ?? "";
  if (namespace !== "") checkDnsLabel(namespace, child(path, "namespace"), out);
}

/** A claim spec at `path` (`spec`, `spec.volumeClaimTemplates[0].spec`, ...). */
export function validatePersistentVolumeClaimSpec(spec: JsonObject, path: string, out: FieldCause[]): void {
  const modesPath = child(path, "accessModes");
  const modes = readStringList(spec.accessModes, modesPath, out);
  if (modes === undefined || modes.length === 0) {
    if (!out.some((cause) => cause.field === modesPath))
      out.push(required(modesPath, "at least 1 access mode is required"));
  }
  const selector = readObject(spec.selector, child(path, "selector"), out);
  if (selector !== undefined) validateLabelSelector(selector, child(path, "selector"), out);
  validateAccessModes(modes ?? [], modesPath, out);
  validateResources(spec, path, out);
  const className = readString(spec.storageClassName, child(path, "storageClassName"), out) ?? "";
  if (className !== "") checkDnsSubdomain(className, child(path, "storageClassName"), out);
  checkOneOf(readString(spec.volumeMode, child(path, "volumeMode"), out), volumeModes, child(path, "volumeMode"), out);
  readString(spec.volumeName, child(path, "volumeName"), out);
  for (const field of ["dataSource", "dataSourceRef"]) {
    const source = readObject(spec[field], child(path, field), out);
    if (source !== undefined) validateDataSource(source, child(path, field), out);
  }
}

export function validatePersistentVolumeClaim(claim: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(claim.metadata, claimMeta, out);
  validatePersistentVolumeClaimSpec(readObject(claim.spec, "spec", out) ?? {}, "spec", out);
}

function objectAt(value: unknown, field: string): JsonObject {
  const object = readObject(value, "", []) ?? {};
  return readObject(object[field], "", []) ?? {};
}

function specOf(claim: JsonObject): JsonObject {
  return readObject(claim.spec, "", []) ?? {};
}

function requestsOf(spec: JsonObject): JsonObject {
  return objectAt(spec.resources, "requests");
}

function storageRequest(claim: JsonObject): Quantity | undefined {
  return readQuantity(requestsOf(specOf(claim))[storageResource], "", []);
}

function annotationOf(claim: JsonObject, annotation: string): string | undefined {
  const value = objectAt(claim.metadata, "annotations")[annotation];
  return typeof value === "string" ? value : undefined;
}

/** Kubernetes compares the claim's new phase; the store carries the stored status over on spec writes. */
function isBound(newClaim: JsonObject, oldClaim: JsonObject): boolean {
  return (objectAt(newClaim, "status").phase ?? objectAt(oldClaim, "status").phase) === boundPhase;
}

/** Whether a change of storageClassName is Kubernetes' allowed upgrade from an unset class. */
function isStorageClassUpgrade(newClaim: JsonObject, oldClaim: JsonObject): boolean {
  const oldClass = specOf(oldClaim).storageClassName;
  const newClass = specOf(newClaim).storageClassName;
  if ((oldClass !== undefined && oldClass !== null) || typeof newClass !== "string") return false;
  const oldAnnotation = annotationOf(oldClaim, betaStorageClassAnnotation);
  const newAnnotation = annotationOf(newClaim, betaStorageClassAnnotation);
  if (oldAnnotation === undefined) return true;
  return newClass === oldAnnotation && (newAnnotation === undefined || newAnnotation === oldAnnotation);
}

/** Resources with quantities in canonical form, so `1Gi` and `1073741824` compare equal. */
function withRequests(resources: unknown, requests: JsonObject): JsonObject {
  const base = readObject(resources, "", []) ?? {};
  return { ...base, requests: canonicalResourceList(requests), limits: canonicalResourceList(base.limits) };
}

/** Both specs with what may change taken from the new one, so any remaining difference is forbidden. */
function comparableSpecs(newClaim: JsonObject, oldClaim: JsonObject): { newSpec: JsonObject; oldSpec: JsonObject } {
  const newSpec: Record<string, unknown> = { ...specOf(newClaim) };
  const oldSpec: Record<string, unknown> = { ...specOf(oldClaim) };
  // The PV controller fills volumeName once, when it binds the claim.
  if (!oldSpec.volumeName) oldSpec.volumeName = newSpec.volumeName;
  if (isStorageClassUpgrade(newClaim, oldClaim)) newSpec.storageClassName = oldSpec.storageClassName;
  const newRequests: Record<string, unknown> = { ...requestsOf(newSpec) };
  // A bound claim may be expanded: its storage request is the one part of spec that may change.
  if (isBound(newClaim, oldClaim)) newRequests[storageResource] = requestsOf(oldSpec)[storageResource];
  newSpec.resources = withRequests(newSpec.resources, newRequests);
  oldSpec.resources = withRequests(oldSpec.resources, requestsOf(oldSpec));
  newSpec.volumeMode ??= defaultVolumeMode;
  oldSpec.volumeMode ??= defaultVolumeMode;
  return { newSpec, oldSpec };
}

/** The beta storage-class annotation is fixed, except when the upgrade to spec.storageClassName drops it. */
function checkStorageClassAnnotation(newClaim: JsonObject, oldClaim: JsonObject, out: FieldCause[]): void {
  const newAnnotation = annotationOf(newClaim, betaStorageClassAnnotation);
  if (
    newAnnotation === annotationOf(oldClaim, betaStorageClassAnnotation) ||
    isStorageClassUpgrade(newClaim, oldClaim)
  ) {
    return;
  }
  const path = child("metadata", "annotations", betaStorageClassAnnotation);
  out.push(invalid(path, newAnnotation ?? "", immutableMessage));
}

function checkSpecUnchanged(newClaim: JsonObject, oldClaim: JsonObject, out: FieldCause[]): void {
  if (semanticEqual(specOf(newClaim), specOf(oldClaim))) return;
  const { newSpec, oldSpec } = comparableSpecs(newClaim, oldClaim);
  if (!semanticEqual(newSpec, oldSpec)) {
    const changed = differingFields(oldSpec, newSpec, "spec").join(", ");
    const rule =
      "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims";
    out.push(forbidden("spec", `${rule}\nchanged: ${changed}`));
  }
  const oldMode = readString(oldSpec.volumeMode, "", []);
  const newMode = readString(newSpec.volumeMode, "", []);
  if (oldMode !== newMode) out.push(invalid("spec.volumeMode", newMode, immutableMessage));
}

/** An update that sets the spec's volumeName, unset until now, and leaves every other spec field as stored. */
function bindsVolume(newClaim: JsonObject, oldClaim: JsonObject): boolean {
  return specUnchangedBut(newClaim, oldClaim, "volumeName") && !specOf(oldClaim).volumeName;
}

export function validatePersistentVolumeClaimUpdate(
  newClaim: JsonObject,
  oldClaim: JsonObject,
  out: FieldCause[],
): void {
  validateObjectMetaUpdate(newClaim.metadata, oldClaim.metadata, out);
  if (specUnchanged(newClaim, oldClaim)) {
    validateChangedObjectMeta(newClaim.metadata, oldClaim.metadata, claimMeta, out);
    checkStorageClassAnnotation(newClaim, oldClaim, out);
    return;
  }
  if (bindsVolume(newClaim, oldClaim)) {
    // The PV controller's bind: of the spec only volumeName is new (read as every spec field is),
    // and filling it once is allowed; what else is checked here it carried over unchanged.
    validateChangedObjectMeta(newClaim.metadata, oldClaim.metadata, claimMeta, out);
    readString(specOf(newClaim).volumeName, child("spec", "volumeName"), out);
    checkStorageClassAnnotation(newClaim, oldClaim, out);
    return;
  }
  validatePersistentVolumeClaim(newClaim, out);
  checkStorageClassAnnotation(newClaim, oldClaim, out);
  checkSpecUnchanged(newClaim, oldClaim, out);
  const oldSize = storageRequest(oldClaim);
  const newSize = storageRequest(newClaim);
  if (oldSize !== undefined && newSize !== undefined && newSize.compare(oldSize) < 0) {
    // RecoverVolumeExpansionFailure (on since 1.32): a request may come down after a failed
    // expansion, but stay above what the claim already has; volumes never shrink.
    const capacity = readQuantity(objectAt(objectAt(oldClaim, "status"), "capacity")[storageResource], "", []);
    if (capacity === undefined || newSize.compare(capacity) <= 0) {
      out.push(forbidden("spec.resources.requests.storage", "field can not be less than status.capacity"));
    }
  }
}
