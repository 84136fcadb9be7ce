/**
 * StorageClass validation (storage's ValidateStorageClass): a provisioner, parameters within
 * limits, a reclaim policy and binding mode Kubernetes knows, and on update nothing that would
 * change how volumes already provisioned from the class were made.
 */
import type { FieldCause } from "../errors.ts";
import { checkOneOf, checkQualifiedName, immutableMessage } from "./field-checks.ts";
import { duplicate, forbidden, invalid, required, tooLong } from "./field-errors.ts";
import { child, index } from "./field-path.ts";
import {
  type JsonObject,
  readObject,
  readObjectList,
  readString,
  readStringList,
  readStringMap,
} from "./json-reader.ts";
import { byteLength, nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { semanticEqual } from "./semantic-equal.ts";

const classMeta: MetaRules = { namespaced: false, nameRule: nameIsDnsSubdomain };
/** Sorted as Kubernetes lists them; a class cannot Recycle. */
const classReclaimPolicies = ["Delete", "Retain"] as const;
const volumeBindingModes = ["Immediate", "WaitForFirstConsumer"] as const;
const defaultReclaimPolicy = "Delete";
const defaultBindingMode = "Immediate";
const maxParameterCount = 512;
const maxParametersSizeBytes = 256 * 1024;

function validateParameters(value: unknown, out: FieldCause[]): void {
  const parameters = readStringMap(value, "parameters", out) ?? {};
  const entries = Object.entries(parameters);
  if (entries.length > maxParameterCount) {
    out.push(tooLong("parameters", maxParameterCount));
    return;
  }
  let totalBytes = 0;
  for (const [name, parameter] of entries) {
    if (name === "") out.push(invalid("parameters", name, "field can not be empty."));
    totalBytes += byteLength(name) + byteLength(parameter);
  }
  if (totalBytes > maxParametersSizeBytes) out.push(tooLong("parameters", maxParametersSizeBytes));
}

/** allowedTopologies: each term's expressions with a key and values, no key twice in a term. */
function validateAllowedTopologies(value: unknown, out: FieldCause[]): void {
  for (const { value: term, path } of readObjectList(value, "allowedTopologies", out)) {
    const keys = new Set<string>();
    for (const expression of readObjectList(term.matchLabelExpressions, child(path, "matchLabelExpressions"), out)) {
      const valuesPath = child(expression.path, "values");
      const values = readStringList(expression.value.values, valuesPath, out) ?? [];
      if (values.length === 0) out.push(required(valuesPath));
      values.forEach((entry, position) => {
        if (values.indexOf(entry) !== position) out.push(duplicate(index(valuesPath, position), entry));
      });
      const topologyKey = readString(expression.value.key, child(expression.path, "key"), out) ?? "";
      checkQualifiedName(topologyKey, child(expression.path, "key"), out);
      if (keys.has(topologyKey)) out.push(duplicate(child(expression.path, "key"), topologyKey));
      keys.add(topologyKey);
    }
  }
}

export function validateStorageClass(storageClass: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(storageClass.metadata, classMeta, out);
  const provisioner = readString(storageClass.provisioner, "provisioner", out) ?? "";
  if (provisioner === "") out.push(required("provisioner"));
  else checkQualifiedName(provisioner.toLowerCase(), "provisioner", out);
  validateParameters(storageClass.parameters, out);
  checkOneOf(readString(storageClass.reclaimPolicy, "reclaimPolicy", out), classReclaimPolicies, "reclaimPolicy", out);
  const modePath = "volumeBindingMode";
  checkOneOf(readString(storageClass.volumeBindingMode, modePath, out), volumeBindingModes, modePath, out);
  validateAllowedTopologies(storageClass.allowedTopologies, out);
  readStringList(storageClass.mountOptions, "mountOptions", out);
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" && value !== "" ? value : fallback;
}

export function validateStorageClassUpdate(newClass: JsonObject, oldClass: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(newClass.metadata, oldClass.metadata, out);
  validateStorageClass(newClass, out);
  const newParameters = readObject(newClass.parameters, "", []);
  const oldParameters = readObject(oldClass.parameters, "", []);
  if (!semanticEqual(newParameters ?? {}, oldParameters ?? {})) {
    out.push(forbidden("parameters", "updates to parameters are forbidden."));
  }
  if (newClass.provisioner !== oldClass.provisioner) {
    out.push(forbidden("provisioner", "updates to provisioner are forbidden."));
  }
  if (
    stringOr(newClass.reclaimPolicy, defaultReclaimPolicy) !== stringOr(oldClass.reclaimPolicy, defaultReclaimPolicy)
  ) {
    out.push(forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
  }
  const newMode = stringOr(newClass.volumeBindingMode, defaultBindingMode);
  if (newMode !== stringOr(oldClass.volumeBindingMode, defaultBindingMode)) {
    out.push(invalid("volumeBindingMode", newMode, immutableMessage));
  }
}
