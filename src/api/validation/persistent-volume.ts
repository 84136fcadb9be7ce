/**
 * PersistentVolume validation (core's ValidatePersistentVolumeSpec and its update rules): capacity,
 * access modes, exactly one volume source, node affinity for local volumes, reclaim policy. The
 * same spec checks, in their "inline" form, apply to a VolumeAttachment's inlineVolumeSpec.
 */

import { posix } from "node:path";
import type { FieldCause } from "../errors.ts";
import { checkDnsSubdomain, checkOneOf, immutableMessage } from "./field-checks.ts";
import { forbidden, invalid, notSupported, required } from "./field-errors.ts";
import { child, key } from "./field-path.ts";
import { type JsonObject, readObject, readString, readStringList } from "./json-reader.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import { validateVolumeNodeAffinity } from "./node-selector.ts";
import {
  type MetaRules,
  validateChangedObjectMeta,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "./object-meta.ts";
import { validateAccessModes, volumeModes } from "./persistent-volume-claim.ts";
import { checkPositiveQuantity, readQuantity } from "./quantity-field.ts";
import { differingFields, semanticEqual } from "./semantic-equal.ts";
import { specUnchanged, specUnchangedBut } from "./unchanged-spec.ts";
import {
  checkRequiredSourceFields,
  validateCsiPersistentVolume,
  validateHostPath,
  validateLocal,
  validateNfs,
  validateRbd,
} from "./volume-source-checks.ts";

/** Sorted as Kubernetes lists them. */
const reclaimPolicies = ["Delete", "Recycle", "Retain"] as const;
const defaultVolumeMode = "Filesystem";
const storageResource = "storage";
const volumeMeta: MetaRules = { namespaced: false, nameRule: nameIsDnsSubdomain };

/** PersistentVolume source types, in the order Kubernetes checks them (the first one found wins). */
const persistentVolumeSourceTypes = [
  "hostPath",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "glusterfs",
  "flocker",
  "nfs",
  "rbd",
  "quobyte",
  "cephfs",
  "iscsi",
  "cinder",
  "fc",
  "flexVolume",
  "azureFile",
  "vsphereVolume",
  "photonPersistentDisk",
  "portworxVolume",
  "azureDisk",
  "scaleIO",
  "local",
  "storageos",
  "csi",
] as const;

type SourceCheck = (source: JsonObject, path: string, out: FieldCause[]) => void;

const sourceChecks: Readonly<Record<string, SourceCheck>> = {
  hostPath: validateHostPath,
  nfs: validateNfs,
  rbd: validateRbd,
  local: validateLocal,
  csi: validateCsiPersistentVolume,
};

/** Checks the sources of a spec; returns the type of the first one, or undefined when there is none. */
function validateSources(spec: JsonObject, path: string, out: FieldCause[]): string | undefined {
  let sourceType: string | undefined;
  for (const type of persistentVolumeSourceTypes) {
    if (spec[type] === undefined || spec[type] === null) continue;
    if (sourceType !== undefined) {
      out.push(forbidden(child(path, type), "may not specify more than 1 volume type"));
      continue;
    }
    sourceType = type;
    const source = readObject(spec[type], child(path, type), out) ?? {};
    const check = sourceChecks[type];
    if (check !== undefined) check(source, child(path, type), out);
    else checkRequiredSourceFields(type, source, child(path, type), out);
  }
  if (sourceType === undefined) out.push(required(path, "must specify a volume type"));
  return sourceType;
}

function validateCapacity(spec: JsonObject, path: string, out: FieldCause[]): void {
  const capacityPath = child(path, "capacity");
  const capacity = readObject(spec.capacity, capacityPath, out);
  if (capacity === undefined || Object.keys(capacity).length === 0) {
    if (!out.some((cause) => cause.field === capacityPath)) out.push(required(capacityPath));
    return;
  }
  const names = Object.keys(capacity);
  if (!names.includes(storageResource) || names.length > 1) {
    out.push(notSupported(capacityPath, capacity, [storageResource]));
  }
  for (const [resourceName, value] of Object.entries(capacity)) {
    const quantity = readQuantity(value, key(capacityPath, resourceName), out);
    if (quantity !== undefined) checkPositiveQuantity(quantity, key(capacityPath, resourceName), out);
  }
}

/** Rules that differ for an inline volume spec (a VolumeAttachment's inlineVolumeSpec). */
function validateInlineOnlyRules(spec: JsonObject, path: string, out: FieldCause[]): void {
  const inlineMessage = "may not be specified in the context of inline volumes";
  for (const field of ["claimRef", "capacity", "nodeAffinity"]) {
    if (spec[field] !== undefined && spec[field] !== null) out.push(forbidden(child(path, field), inlineMessage));
  }
  if (spec.csi === undefined || spec.csi === null) {
    out.push(required(child(path, "csi"), "has to be specified in the context of inline volumes"));
  }
  const policy = readString(spec.persistentVolumeReclaimPolicy, child(path, "persistentVolumeReclaimPolicy"), out);
  if (policy !== undefined && policy !== "" && policy !== "Retain") {
    out.push(
      forbidden(child(path, "persistentVolumeReclaimPolicy"), "may only be Retain in the context of inline volumes"),
    );
  }
  if ((readString(spec.storageClassName, child(path, "storageClassName"), out) ?? "") !== "") {
    out.push(forbidden(child(path, "storageClassName"), inlineMessage));
  }
  const mode = readString(spec.volumeMode, child(path, "volumeMode"), out);
  if (mode !== undefined && mode !== defaultVolumeMode) {
    out.push(
      forbidden(
        child(path, "volumeMode"),
        "may not specify volumeMode other than Filesystem in the context of inline volumes",
      ),
    );
  }
}

function validateStandaloneRules(spec: JsonObject, path: string, out: FieldCause[]): boolean {
  validateCapacity(spec, path, out);
  const policyPath = child(path, "persistentVolumeReclaimPolicy");
  checkOneOf(readString(spec.persistentVolumeReclaimPolicy, policyPath, out), reclaimPolicies, policyPath, out);
  const affinity = readObject(spec.nodeAffinity, child(path, "nodeAffinity"), out);
  if (affinity !== undefined) validateVolumeNodeAffinity(affinity, child(path, "nodeAffinity"), out);
  const className = readString(spec.storageClassName, child(path, "storageClassName"), out) ?? "";
  if (className !== "") checkDnsSubdomain(className, child(path, "storageClassName"), out);
  checkOneOf(readString(spec.volumeMode, child(path, "volumeMode"), out), volumeModes, child(path, "volumeMode"), out);
  return affinity !== undefined;
}

/** A PersistentVolume spec at `path`; `inline` for a VolumeAttachment's inlineVolumeSpec. */
export function validatePersistentVolumeSpec(spec: JsonObject, path: string, inline: boolean, out: FieldCause[]): void {
  const modesPath = child(path, "accessModes");
  const modes = readStringList(spec.accessModes, modesPath, out);
  if ((modes === undefined || modes.length === 0) && !out.some((cause) => cause.field === modesPath)) {
    out.push(required(modesPath));
  }
  validateAccessModes(modes ?? [], modesPath, out);
  const hasNodeAffinity = inline ? false : validateStandaloneRules(spec, path, out);
  if (inline) validateInlineOnlyRules(spec, path, out);
  const sourceType = validateSources(spec, path, out);
  if (sourceType === "local" && !hasNodeAffinity && !inline) {
    out.push(required(child(path, "nodeAffinity"), "Local volume requires node affinity"));
  }
  const hostPath = readObject(spec.hostPath, "", [])?.path;
  const isRoot = typeof hostPath === "string" && hostPath !== "" && posix.normalize(hostPath) === "/";
  if (sourceType === "hostPath" && isRoot && spec.persistentVolumeReclaimPolicy === "Recycle") {
    out.push(
      forbidden(child(path, "persistentVolumeReclaimPolicy"), "may not be 'recycle' for a hostPath mount of '/'"),
    );
  }
}

export function validatePersistentVolume(volume: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(volume.metadata, volumeMeta, out);
  validatePersistentVolumeSpec(readObject(volume.spec, "spec", out) ?? {}, "spec", false, out);
}

function specOf(volume: JsonObject): JsonObject {
  return readObject(volume.spec, "", []) ?? {};
}

/** The volume source part of a spec (Kubernetes' PersistentVolumeSource). */
function sourcesOf(spec: JsonObject): Record<string, unknown> {
  return Object.fromEntries(persistentVolumeSourceTypes.map((type) => [type, spec[type]]));
}

export function validatePersistentVolumeUpdate(newVolume: JsonObject, oldVolume: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(newVolume.metadata, oldVolume.metadata, out);
  // A volume's claimRef (set by a bind, cleared by a release) is the one spec field no rule here
  // reads: with every other spec field as stored, only the metadata can have changed findings.
  if (specUnchanged(newVolume, oldVolume) || specUnchangedBut(newVolume, oldVolume, "claimRef")) {
    validateChangedObjectMeta(newVolume.metadata, oldVolume.metadata, volumeMeta, out);
    return;
  }
  validatePersistentVolume(newVolume, out);
  const newSpec = specOf(newVolume);
  const oldSpec = specOf(oldVolume);
  const newSources = sourcesOf(newSpec);
  const oldSources = sourcesOf(oldSpec);
  const oldCsi = readObject(oldSpec.csi, "", []);
  const newCsi = readObject(newSpec.csi, "", []);
  // A CSI volume may gain a controllerExpandSecretRef, so that an old volume can be expanded.
  if (oldCsi !== undefined && newCsi !== undefined && oldCsi.controllerExpandSecretRef === undefined) {
    newSources.csi = { ...newCsi, controllerExpandSecretRef: undefined };
  }
  if (!semanticEqual(newSources, oldSources)) {
    const changed = differingFields(oldSources, newSources, "spec").join(", ");
    out.push(
      forbidden(
        "spec.persistentvolumesource",
        `spec.persistentvolumesource is immutable after creation\nchanged: ${changed}`,
      ),
    );
  }
  const oldMode = readString(oldSpec.volumeMode, "", []) ?? defaultVolumeMode;
  const newMode = readString(newSpec.volumeMode, "", []) ?? defaultVolumeMode;
  if (oldMode !== newMode) out.push(invalid("spec.volumeMode", newMode, immutableMessage));
  if (oldSpec.nodeAffinity !== undefined && oldSpec.nodeAffinity !== null) {
    if (!semanticEqual(newSpec.nodeAffinity, oldSpec.nodeAffinity)) {
      out.push(invalid("spec.nodeAffinity", newSpec.nodeAffinity, immutableMessage));
    }
  }
}
