/**
 * ReplicaSet validation (apps' ValidateReplicaSet): replicas, selector and pod template.
 */
import type { FieldCause } from "../errors.ts";
import { checkNonNegative } from "./field-checks.ts";
import { type JsonObject, readInteger, readObject } from "./json-reader.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { validateSelectorAndTemplate } from "./workload-template.ts";

const replicaSetMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };

export function validateReplicaSet(replicaSet: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(replicaSet.metadata, replicaSetMeta, out);
  const spec = readObject(replicaSet.spec, "spec", out) ?? {};
  checkNonNegative(readInteger(spec.replicas, "spec.replicas", out), "spec.replicas", out);
  checkNonNegative(readInteger(spec.minReadySeconds, "spec.minReadySeconds", out), "spec.minReadySeconds", out);
  // Kubernetes words the empty-selector error for ReplicaSets as it does for Deployments.
  validateSelectorAndTemplate(spec, "spec", { ownerKind: "ReplicaSet", selectorWord: "deployment" }, out);
}

export function validateReplicaSetUpdate(newSet: JsonObject, oldSet: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(newSet.metadata, oldSet.metadata, out);
  validateReplicaSet(newSet, out);
}
