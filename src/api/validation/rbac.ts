/**
 * RBAC validation (rbac's ValidateRole, ValidateClusterRole, ValidateRoleBinding and
 * ValidateClusterRoleBinding): names are path segments, every rule has verbs and either resources
 * with API groups or non-resource URLs (cluster roles only), a binding points at a Role or
 * ClusterRole of the RBAC group and names its subjects, and its roleRef never changes.
 */
import type { FieldCause } from "../errors.ts";
import { rbacGroup } from "../resources.ts";
import { invalid, notSupported, required } from "./field-errors.ts";
import { child } from "./field-path.ts";
import { type JsonObject, readObject, readObjectList, readString, readStringList } from "./json-reader.ts";
import { validateLabelSelector } from "./labels.ts";
import { dns1123SubdomainProblems, type NameRule } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { semanticEqual } from "./semantic-equal.ts";

/** path.IsValidPathSegmentName (a prefix may end in anything but '/' and '%'). */
const nameIsPathSegment: NameRule = (name, prefix) => {
  if (!prefix && (name === "." || name === "..")) return [`may not be '${name}'`];
  const problems: string[] = [];
  if (name.includes("/")) problems.push("may not contain '/'");
  if (name.includes("%")) problems.push("may not contain '%'");
  return problems;
};

const namespacedMeta: MetaRules = { namespaced: true, nameRule: nameIsPathSegment };
const clusterMeta: MetaRules = { namespaced: false, nameRule: nameIsPathSegment };

function validatePolicyRule(rule: JsonObject, namespaced: boolean, path: string, out: FieldCause[]): void {
  const verbs = readStringList(rule.verbs, child(path, "verbs"), out) ?? [];
  const apiGroups = readStringList(rule.apiGroups, child(path, "apiGroups"), out) ?? [];
  const resources = readStringList(rule.resources, child(path, "resources"), out) ?? [];
  const resourceNames = readStringList(rule.resourceNames, child(path, "resourceNames"), out) ?? [];
  const urls = readStringList(rule.nonResourceURLs, child(path, "nonResourceURLs"), out) ?? [];
  if (verbs.length === 0) out.push(required(child(path, "verbs"), "verbs must contain at least one value"));
  if (urls.length > 0) {
    if (namespaced) {
      out.push(invalid(child(path, "nonResourceURLs"), urls, "namespaced rules cannot apply to non-resource URLs"));
    }
    if (apiGroups.length > 0 || resources.length > 0 || resourceNames.length > 0) {
      out.push(
        invalid(
          child(path, "nonResourceURLs"),
          urls,
          "rules cannot apply to both regular resources and non-resource URLs",
        ),
      );
    }
    return;
  }
  if (apiGroups.length === 0) {
    out.push(required(child(path, "apiGroups"), "resource rules must supply at least one api group"));
  }
  if (resources.length === 0) {
    out.push(required(child(path, "resources"), "resource rules must supply at least one resource"));
  }
}

function validateRules(role: JsonObject, namespaced: boolean, out: FieldCause[]): void {
  for (const entry of readObjectList(role.rules, "rules", out))
    validatePolicyRule(entry.value, namespaced, entry.path, out);
}

export function validateRole(role: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(role.metadata, namespacedMeta, out);
  validateRules(role, true, out);
}

export function validateRoleUpdate(role: JsonObject, old: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(role.metadata, old.metadata, out);
  validateRole(role, out);
}

export function validateClusterRole(role: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(role.metadata, clusterMeta, out);
  validateRules(role, false, out);
  if (role.aggregationRule === undefined || role.aggregationRule === null) return;
  const aggregation = readObject(role.aggregationRule, "aggregationRule", out) ?? {};
  const selectorsPath = child("aggregationRule", "clusterRoleSelectors");
  const selectors = readObjectList(aggregation.clusterRoleSelectors, selectorsPath, out);
  if (selectors.length === 0) {
    out.push(required(selectorsPath, "at least one clusterRoleSelector required if aggregationRule is non-nil"));
  }
  for (const entry of selectors) validateLabelSelector(entry.value, entry.path, out);
}

export function validateClusterRoleUpdate(role: JsonObject, old: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(role.metadata, old.metadata, out);
  validateClusterRole(role, out);
}

function validateRoleRef(binding: JsonObject, kinds: readonly string[], out: FieldCause[]): void {
  const ref = readObject(binding.roleRef, "roleRef", out) ?? {};
  const apiGroup = readString(ref.apiGroup, "roleRef.apiGroup", out) ?? "";
  if (apiGroup !== rbacGroup) out.push(notSupported("roleRef.apiGroup", apiGroup, [rbacGroup]));
  const kind = readString(ref.kind, "roleRef.kind", out) ?? "";
  if (!kinds.includes(kind)) out.push(notSupported("roleRef.kind", kind, kinds));
  const name = readString(ref.name, "roleRef.name", out) ?? "";
  if (name === "") out.push(required("roleRef.name"));
  else for (const problem of nameIsPathSegment(name, false)) out.push(invalid("roleRef.name", name, problem));
}

function validateSubject(subject: JsonObject, namespaced: boolean, path: string, out: FieldCause[]): void {
  const name = readString(subject.name, child(path, "name"), out) ?? "";
  const kind = readString(subject.kind, child(path, "kind"), out) ?? "";
  const apiGroup = readString(subject.apiGroup, child(path, "apiGroup"), out) ?? "";
  const namespace = readString(subject.namespace, child(path, "namespace"), out) ?? "";
  if (name === "") out.push(required(child(path, "name")));
  switch (kind) {
    case "ServiceAccount":
      if (name !== "") {
        for (const problem of dns1123SubdomainProblems(name)) out.push(invalid(child(path, "name"), name, problem));
      }
      if (apiGroup !== "") out.push(notSupported(child(path, "apiGroup"), apiGroup, [""]));
      if (!namespaced && namespace === "") out.push(required(child(path, "namespace")));
      return;
    case "User":
    case "Group":
      if (apiGroup !== rbacGroup) out.push(notSupported(child(path, "apiGroup"), apiGroup, [rbacGroup]));
      return;
    default:
      out.push(notSupported(child(path, "kind"), kind, ["ServiceAccount", "User", "Group"]));
  }
}

function validateBinding(binding: JsonObject, namespaced: boolean, out: FieldCause[]): void {
  validateObjectMeta(binding.metadata, namespaced ? namespacedMeta : clusterMeta, out);
  validateRoleRef(binding, namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"], out);
  for (const entry of readObjectList(binding.subjects, "subjects", out)) {
    validateSubject(entry.value, namespaced, entry.path, out);
  }
}

function validateBindingUpdate(binding: JsonObject, old: JsonObject, namespaced: boolean, out: FieldCause[]): void {
  validateObjectMetaUpdate(binding.metadata, old.metadata, out);
  validateBinding(binding, namespaced, out);
  // A binding's role is its identity: to point it elsewhere, delete and recreate it.
  if (!semanticEqual(binding.roleRef, old.roleRef))
    out.push(invalid("roleRef", binding.roleRef, "cannot change roleRef"));
}

export function validateRoleBinding(binding: JsonObject, out: FieldCause[]): void {
  validateBinding(binding, true, out);
}

export function validateRoleBindingUpdate(binding: JsonObject, old: JsonObject, out: FieldCause[]): void {
  validateBindingUpdate(binding, old, true, out);
}

export function validateClusterRoleBinding(binding: JsonObject, out: FieldCause[]): void {
  validateBinding(binding, false, out);
}

export function validateClusterRoleBindingUpdate(binding: JsonObject, old: JsonObject, out: FieldCause[]): void {
  validateBindingUpdate(binding, old, false, out);
}
