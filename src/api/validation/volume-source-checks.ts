/**
 * Checks for the inside of each volume source, shared by pod volumes, PersistentVolumes and inline
 * volume specs. The sources kvol runs (emptyDir, hostPath, configMap, secret, downwardAPI,
 * projected, local, nfs, rbd, csi, persistentVolumeClaim, ephemeral) get Kubernetes' full checks;
 * the others only their required fields, so a manifest written for them is still judged fairly.
 */
import type { FieldCause } from "../errors.ts";
import {
  checkCsiDriverName,
  checkDnsLabel,
  checkDnsSubdomain,
  checkFileMode,
  checkLocalNonReservedPath,
  checkNoBacksteps,
  checkOneOf,
} from "./field-checks.ts";
import { forbidden, invalid, notSupported, required } from "./field-errors.ts";
import { child } from "./field-path.ts";
import {
  isJsonObject,
  type JsonObject,
  listLength,
  readInteger,
  readObject,
  readObjectList,
  readString,
} from "./json-reader.ts";
import { readQuantity } from "./quantity-field.ts";

/** Sorted as Kubernetes lists them (sets.List of HostPathType). */
const hostPathTypes = [
  "",
  "BlockDevice",
  "CharDevice",
  "Directory",
  "DirectoryOrCreate",
  "File",
  "FileOrCreate",
  "Socket",
] as const;
/** emptyDir media; `HugePages-<size>` stands for any page size (`HugePages-2Mi`). */
const emptyDirMedia = ["", "HugePages", "HugePages-<size>", "Memory"] as const;
const hugePagesMediumPrefix = "HugePages-";
/** Fields a downwardAPI volume file may project. */
const downwardApiFieldPaths = [
  "metadata.annotations",
  "metadata.labels",
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
] as const;
/** Kubernetes refuses projected service account tokens shorter than ten minutes or longer than 2^32 s. */
const minTokenExpirationSeconds = 10 * 60;
const maxTokenExpirationSeconds = 2 ** 32;

/** Required string fields of the sources kvol recognises but does not run. */
const requiredFieldsBySource: Readonly<Record<string, readonly string[]>> = {
  gitRepo: ["repository"],
  gcePersistentDisk: ["pdName"],
  awsElasticBlockStore: ["volumeID"],
  iscsi: ["targetPortal", "iqn"],
  glusterfs: ["endpoints", "path"],
  cinder: ["volumeID"],
  quobyte: ["registry", "volume"],
  flexVolume: ["driver"],
  azureFile: ["secretName", "shareName"],
  vsphereVolume: ["volumePath"],
  photonPersistentDisk: ["pdID"],
  portworxVolume: ["volumeID"],
  azureDisk: ["diskName", "diskURI"],
  scaleIO: ["gateway", "system", "volumeName"],
  storageos: ["volumeName"],
};

export function checkRequiredSourceFields(
  sourceType: string,
  source: JsonObject,
  path: string,
  out: FieldCause[],
): void {
  for (const field of requiredFieldsBySource[sourceType] ?? []) {
    if ((readString(source[field], child(path, field), out) ?? "") === "") out.push(required(child(path, field)));
  }
  if (sourceType === "cephfs" && listLength(source.monitors) === 0) out.push(required(child(path, "monitors")));
  if (sourceType === "fc" && listLength(source.targetWWNs) === 0 && listLength(source.wwids) === 0) {
    out.push(required(child(path, "targetWWNs"), "must specify either targetWWNs or wwids, but not both"));
  }
  if (sourceType === "flocker" && !source.datasetName && !source.datasetUUID) {
    out.push(required(path, "one of datasetName and datasetUUID is required"));
  }
}

/** A string field that must be present and not empty; returns it for further checks. */
function requiredString(source: JsonObject, field: string, path: string, out: FieldCause[]): string {
  const value = readString(source[field], child(path, field), out) ?? "";
  if (value === "") out.push(required(child(path, field)));
  return value;
}

export function validateEmptyDir(source: JsonObject, path: string, out: FieldCause[]): void {
  const medium = readString(source.medium, child(path, "medium"), out) ?? "";
  const knownMedium = (emptyDirMedia as readonly string[]).includes(medium) || medium.startsWith(hugePagesMediumPrefix);
  // Kubernetes accepts any medium here and fails at mount time; refusing it up front is kinder.
  if (!knownMedium) out.push(notSupported(child(path, "medium"), medium, emptyDirMedia));
  const sizeLimit = readQuantity(source.sizeLimit, child(path, "sizeLimit"), out);
  if (sizeLimit !== undefined && sizeLimit.sign() < 0) {
    out.push(forbidden(child(path, "sizeLimit"), "SizeLimit field must be a valid resource quantity"));
  }
}

export function validateHostPath(source: JsonObject, path: string, out: FieldCause[]): void {
  const hostPath = requiredString(source, "path", path, out);
  if (hostPath === "") return;
  checkNoBacksteps(hostPath, child(path, "path"), out);
  checkOneOf(readString(source.type, child(path, "type"), out), hostPathTypes, child(path, "type"), out);
}

export function validateNfs(source: JsonObject, path: string, out: FieldCause[]): void {
  requiredString(source, "server", path, out);
  const exportPath = requiredString(source, "path", path, out);
  if (exportPath !== "" && !exportPath.startsWith("/")) {
    out.push(invalid(child(path, "path"), exportPath, "must be an absolute path"));
  }
}

export function validateRbd(source: JsonObject, path: string, out: FieldCause[]): void {
  if (listLength(source.monitors) === 0) out.push(required(child(path, "monitors")));
  requiredString(source, "image", path, out);
}

export function validateLocal(source: JsonObject, path: string, out: FieldCause[]): void {
  const localPath = requiredString(source, "path", path, out);
  if (localPath !== "") checkNoBacksteps(localPath, child(path, "path"), out);
}

export function validatePersistentVolumeClaimRef(source: JsonObject, path: string, out: FieldCause[]): void {
  requiredString(source, "claimName", path, out);
}

/** A secret reference in a PersistentVolume: name and namespace both required. */
function validatePvSecretRef(ref: JsonObject, path: string, out: FieldCause[]): void {
  const name = requiredString(ref, "name", path, out);
  if (name !== "") checkDnsSubdomain(name, child(path, "name"), out);
  const namespace = requiredString(ref, "namespace", path, out);
  if (namespace !== "") checkDnsLabel(namespace, child(path, "namespace"), out);
}

const csiSecretRefFields = [
  "controllerPublishSecretRef",
  "nodeStageSecretRef",
  "nodePublishSecretRef",
  "controllerExpandSecretRef",
  "nodeExpandSecretRef",
] as const;

export function validateCsiPersistentVolume(source: JsonObject, path: string, out: FieldCause[]): void {
  checkCsiDriverName(readString(source.driver, child(path, "driver"), out), child(path, "driver"), out);
  requiredString(source, "volumeHandle", path, out);
  for (const field of csiSecretRefFields) {
    const ref = readObject(source[field], child(path, field), out);
    if (ref !== undefined) validatePvSecretRef(ref, child(path, field), out);
  }
}

/** An inline (ephemeral) CSI volume in a pod. */
export function validateCsiInline(source: JsonObject, path: string, out: FieldCause[]): void {
  checkCsiDriverName(readString(source.driver, child(path, "driver"), out), child(path, "driver"), out);
  const ref = readObject(source.nodePublishSecretRef, child(path, "nodePublishSecretRef"), out);
  if (ref === undefined) return;
  const name = requiredString(ref, "name", child(path, "nodePublishSecretRef"), out);
  if (name !== "") checkDnsSubdomain(name, child(path, "nodePublishSecretRef", "name"), out);
}

function validateKeyToPath(item: JsonObject, path: string, out: FieldCause[]): string {
  requiredString(item, "key", path, out);
  const target = requiredString(item, "path", path, out);
  checkLocalNonReservedPath(target, child(path, "path"), out);
  checkFileMode(readInteger(item.mode, child(path, "mode"), out), child(path, "mode"), out);
  return target;
}

function validateItems(source: JsonObject, path: string, out: FieldCause[]): string[] {
  return readObjectList(source.items, child(path, "items"), out).map((item) =>
    validateKeyToPath(item.value, item.path, out),
  );
}

export function validateSecretVolume(source: JsonObject, path: string, out: FieldCause[]): void {
  requiredString(source, "secretName", path, out);
  checkFileMode(readInteger(source.defaultMode, child(path, "defaultMode"), out), child(path, "defaultMode"), out);
  validateItems(source, path, out);
}

export function validateConfigMapVolume(source: JsonObject, path: string, out: FieldCause[]): void {
  requiredString(source, "name", path, out);
  checkFileMode(readInteger(source.defaultMode, child(path, "defaultMode"), out), child(path, "defaultMode"), out);
  validateItems(source, path, out);
}

function isDownwardApiFieldPath(fieldPath: string): boolean {
  if ((downwardApiFieldPaths as readonly string[]).includes(fieldPath)) return true;
  // A single label or annotation: metadata.labels['app'].
  return /^metadata\.(labels|annotations)\['[^']+'\]$/.test(fieldPath);
}

function validateDownwardApiFile(file: JsonObject, path: string, out: FieldCause[]): string {
  const target = requiredString(file, "path", path, out);
  checkLocalNonReservedPath(target, child(path, "path"), out);
  const fieldRef = readObject(file.fieldRef, child(path, "fieldRef"), out);
  const resourceFieldRef = readObject(file.resourceFieldRef, child(path, "resourceFieldRef"), out);
  if (fieldRef !== undefined) {
    const fieldPathPath = child(path, "fieldRef", "fieldPath");
    const fieldPath = requiredString(fieldRef, "fieldPath", child(path, "fieldRef"), out);
    if (fieldPath !== "" && !isDownwardApiFieldPath(fieldPath)) {
      out.push(notSupported(fieldPathPath, fieldPath, downwardApiFieldPaths));
    }
    if (resourceFieldRef !== undefined) {
      out.push(invalid(path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"));
    }
  } else if (resourceFieldRef === undefined) {
    out.push(required(path, "one of fieldRef and resourceFieldRef is required"));
  }
  checkFileMode(readInteger(file.mode, child(path, "mode"), out), child(path, "mode"), out);
  return target;
}

export function validateDownwardApiVolume(source: JsonObject, path: string, out: FieldCause[]): void {
  checkFileMode(readInteger(source.defaultMode, child(path, "defaultMode"), out), child(path, "defaultMode"), out);
  for (const item of readObjectList(source.items, child(path, "items"), out)) {
    validateDownwardApiFile(item.value, item.path, out);
  }
}

/** The file paths one projection writes, after checking it. */
function validateProjection(projection: JsonObject, path: string, out: FieldCause[]): string[] {
  const kinds = ["secret", "configMap", "downwardAPI", "serviceAccountToken", "clusterTrustBundle"].filter((kind) =>
    isJsonObject(projection[kind]),
  );
  if (kinds.length > 1) out.push(forbidden(path, "may not specify more than 1 volume type per source"));
  const targets: string[] = [];
  for (const kind of kinds) {
    const source = readObject(projection[kind], child(path, kind), out) ?? {};
    const sourcePath = child(path, kind);
    if (kind === "secret" || kind === "configMap") {
      requiredString(source, "name", sourcePath, out);
      targets.push(...validateItems(source, sourcePath, out));
    } else if (kind === "downwardAPI") {
      for (const item of readObjectList(source.items, child(sourcePath, "items"), out)) {
        targets.push(validateDownwardApiFile(item.value, item.path, out));
      }
    } else if (kind === "serviceAccountToken") {
      targets.push(validateServiceAccountToken(source, sourcePath, out));
    }
  }
  return targets;
}

function validateServiceAccountToken(source: JsonObject, path: string, out: FieldCause[]): string {
  const expiration = readInteger(source.expirationSeconds, child(path, "expirationSeconds"), out);
  if (expiration !== undefined && expiration < minTokenExpirationSeconds) {
    out.push(invalid(child(path, "expirationSeconds"), expiration, "may not specify a duration less than 10 minutes"));
  }
  if (expiration !== undefined && expiration > maxTokenExpirationSeconds) {
    out.push(
      invalid(child(path, "expirationSeconds"), expiration, "may not specify a duration larger than 2^32 seconds"),
    );
  }
  const target = requiredString(source, "path", path, out);
  checkLocalNonReservedPath(target, child(path, "path"), out);
  return target;
}

export function validateProjectedVolume(source: JsonObject, path: string, out: FieldCause[]): void {
  checkFileMode(readInteger(source.defaultMode, child(path, "defaultMode"), out), child(path, "defaultMode"), out);
  const seen = new Set<string>();
  for (const projection of readObjectList(source.sources, child(path, "sources"), out)) {
    for (const target of validateProjection(projection.value, projection.path, out)) {
      if (target === "") continue;
      if (seen.has(target)) out.push(invalid(path, target, "conflicting duplicate paths"));
      seen.add(target);
    }
  }
}
