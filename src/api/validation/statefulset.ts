/**
 * StatefulSet validation (apps' ValidateStatefulSet): selector and template, pod management and
 * update strategy, and the volumeClaimTemplates each replica gets its own claim from — each one
 * a valid claim, checked with the PersistentVolumeClaim rules under `spec.volumeClaimTemplates[i]`.
 */
import type { FieldCause } from "../errors.ts";
import { checkDnsLabel, checkNonNegative } from "./field-checks.ts";
import { duplicate, forbidden, invalid, notSupported, required } from "./field-errors.ts";
import { child } from "./field-path.ts";
import { checkIntOrPercent, checkNotMoreThan100Percent, intOrPercentValue } from "./int-or-percent.ts";
import {
  isJsonObject,
  type JsonObject,
  readInteger,
  readIntOrString,
  readObject,
  readObjectList,
  readString,
} from "./json-reader.ts";
import { validateAnnotations, validateLabels } from "./labels.ts";
import { nameIsDnsLabel } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { validatePersistentVolumeClaimSpec } from "./persistent-volume-claim.ts";
import { canonicalResourceList, semanticEqual } from "./semantic-equal.ts";
import { validateSelectorAndTemplate } from "./workload-template.ts";

/** Pods of a StatefulSet are named `<set>-<ordinal>`, so the set's name must be a DNS label. */
const statefulSetMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsLabel };
/** On update Kubernetes does not recheck the name: sets once allowed subdomain names must stay deletable. */
const statefulSetUpdateMeta: MetaRules = { namespaced: true, nameRule: () => [] };
const podManagementPolicies = ["OrderedReady", "Parallel"] as const;
const retentionPolicies = ["Retain", "Delete"] as const;
const defaultPodManagementPolicy = "OrderedReady";
/** Spec fields an update may change (everything else, the claim templates included, is fixed). */
const mutableSpecFields = [
  "replicas",
  "ordinals",
  "template",
  "updateStrategy",
  "persistentVolumeClaimRetentionPolicy",
  "minReadySeconds",
] as const;

function validatePodManagementPolicy(spec: JsonObject, out: FieldCause[]): void {
  const path = "spec.podManagementPolicy";
  const policy = readString(spec.podManagementPolicy, path, out) ?? "";
  if (policy !== "" && !(podManagementPolicies as readonly string[]).includes(policy)) {
    out.push(invalid(path, policy, "must be 'OrderedReady' or 'Parallel'"));
  }
}

function validateRollingUpdate(rollingUpdate: JsonObject, path: string, out: FieldCause[]): void {
  checkNonNegative(readInteger(rollingUpdate.partition, child(path, "partition"), out), child(path, "partition"), out);
  const maxUnavailablePath = child(path, "maxUnavailable");
  const maxUnavailable = readIntOrString(rollingUpdate.maxUnavailable, maxUnavailablePath, out);
  if (maxUnavailable === undefined) return;
  checkIntOrPercent(maxUnavailable, maxUnavailablePath, out);
  if (intOrPercentValue(maxUnavailable) === 0) out.push(invalid(maxUnavailablePath, maxUnavailable, "cannot be 0"));
  checkNotMoreThan100Percent(maxUnavailable, maxUnavailablePath, out);
}

function validateUpdateStrategy(spec: JsonObject, out: FieldCause[]): void {
  const path = "spec.updateStrategy";
  const strategy = readObject(spec.updateStrategy, path, out) ?? {};
  const type = readString(strategy.type, child(path, "type"), out) ?? "";
  const rollingUpdate = readObject(strategy.rollingUpdate, child(path, "rollingUpdate"), out);
  if (type === "OnDelete") {
    if (rollingUpdate !== undefined) {
      out.push(invalid(child(path, "rollingUpdate"), rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
    }
  } else if (type === "RollingUpdate" || type === "") {
    if (rollingUpdate !== undefined) validateRollingUpdate(rollingUpdate, child(path, "rollingUpdate"), out);
  } else {
    out.push(invalid(path, strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  }
}

function validateRetentionPolicy(spec: JsonObject, out: FieldCause[]): void {
  const path = "spec.persistentVolumeClaimRetentionPolicy";
  const policy = readObject(spec.persistentVolumeClaimRetentionPolicy, path, out);
  for (const field of ["whenDeleted", "whenScaled"]) {
    const value = readString(policy?.[field], child(path, field), out);
    if (value !== undefined && !(retentionPolicies as readonly string[]).includes(value)) {
      out.push(notSupported(child(path, field), value, retentionPolicies));
    }
  }
}

/** Each claim template: a DNS-label name (it becomes a volume name), unique, and a valid claim. */
function validateClaimTemplates(spec: JsonObject, out: FieldCause[]): string[] {
  const names: string[] = [];
  for (const { value: template, path } of readObjectList(spec.volumeClaimTemplates, "spec.volumeClaimTemplates", out)) {
    const metadataPath = child(path, "metadata");
    const metadata = readObject(template.metadata, metadataPath, out) ?? {};
    const namePath = child(metadataPath, "name");
    const name = readString(metadata.name, namePath, out) ?? "";
    if (name === "") out.push(required(namePath));
    else checkDnsLabel(name, namePath, out);
    if (name !== "" && names.includes(name)) out.push(duplicate(namePath, name));
    names.push(name);
    validateLabels(metadata.labels, child(metadataPath, "labels"), out);
    validateAnnotations(metadata.annotations, child(metadataPath, "annotations"), out);
    const specPath = child(path, "spec");
    validatePersistentVolumeClaimSpec(readObject(template.spec, specPath, out) ?? {}, specPath, out);
  }
  return names.filter((name) => name !== "");
}

function validateStatefulSetSpec(spec: JsonObject, out: FieldCause[]): void {
  validatePodManagementPolicy(spec, out);
  validateUpdateStrategy(spec, out);
  validateRetentionPolicy(spec, out);
  checkNonNegative(readInteger(spec.replicas, "spec.replicas", out), "spec.replicas", out);
  checkNonNegative(readInteger(spec.minReadySeconds, "spec.minReadySeconds", out), "spec.minReadySeconds", out);
  const ordinals = readObject(spec.ordinals, "spec.ordinals", out);
  checkNonNegative(readInteger(ordinals?.start, "spec.ordinals.start", out), "spec.ordinals.start", out);
  const serviceName = readString(spec.serviceName, "spec.serviceName", out) ?? "";
  if (serviceName !== "") checkDnsLabel(serviceName, "spec.serviceName", out);
  const claimTemplateNames = validateClaimTemplates(spec, out);
  validateSelectorAndTemplate(
    spec,
    "spec",
    { ownerKind: "StatefulSet", selectorWord: "statefulset", claimTemplateNames },
    out,
  );
}

export function validateStatefulSet(statefulSet: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(statefulSet.metadata, statefulSetMeta, out);
  validateStatefulSetSpec(readObject(statefulSet.spec, "spec", out) ?? {}, out);
}

/** Claim templates with defaults filled and quantities canonical, for comparing across an update. */
function comparableClaimTemplates(templates: unknown): unknown {
  if (!Array.isArray(templates)) return templates;
  return templates.map((template) => {
    if (!isJsonObject(template) || !isJsonObject(template.spec)) return template;
    const resources = isJsonObject(template.spec.resources) ? template.spec.resources : {};
    const spec = {
      ...template.spec,
      volumeMode: template.spec.volumeMode ?? "Filesystem",
      resources: { ...resources, requests: canonicalResourceList(resources.requests) },
    };
    return { ...template, spec, status: undefined };
  });
}

/** The spec without the fields an update may change. */
function fixedPart(spec: JsonObject): JsonObject {
  const fixed: Record<string, unknown> = { ...spec };
  for (const field of mutableSpecFields) delete fixed[field];
  fixed.podManagementPolicy = spec.podManagementPolicy ?? defaultPodManagementPolicy;
  fixed.volumeClaimTemplates = comparableClaimTemplates(spec.volumeClaimTemplates);
  return fixed;
}

export function validateStatefulSetUpdate(newSet: JsonObject, oldSet: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(newSet.metadata, oldSet.metadata, out);
  validateObjectMeta(newSet.metadata, statefulSetUpdateMeta, out);
  validateStatefulSetSpec(readObject(newSet.spec, "spec", out) ?? {}, out);
  const newSpec = readObject(newSet.spec, "", []) ?? {};
  const oldSpec = readObject(oldSet.spec, "", []) ?? {};
  if (!semanticEqual(fixedPart(newSpec), fixedPart(oldSpec))) {
    out.push(
      forbidden(
        "spec",
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
}
