/**
 * Node selectors (core's ValidateNodeSelector): the required node affinity of a PersistentVolume
 * (`local` volumes must have one) and of a pod.
 */
import type { FieldCause } from "../errors.ts";
import { checkQualifiedName } from "./field-checks.ts";
import { forbidden, invalid, required } from "./field-errors.ts";
import { child, index } from "./field-path.ts";
import { type JsonObject, readObject, readObjectList, readString, readStringList } from "./json-reader.ts";
import { checkLabelValue } from "./labels.ts";
import { nameIsDnsSubdomain } from "./names.ts";

/** The only field a node field selector may name. */
const nodeNameField = "metadata.name";

function validateExpression(requirement: JsonObject, path: string, out: FieldCause[]): void {
  const operator = readString(requirement.operator, child(path, "operator"), out) ?? "";
  const valuesPath = child(path, "values");
  const values = readStringList(requirement.values, valuesPath, out) ?? [];
  if (operator === "In" || operator === "NotIn") {
    if (values.length === 0) out.push(required(valuesPath, "must be specified when `operator` is 'In' or 'NotIn'"));
  } else if (operator === "Exists" || operator === "DoesNotExist") {
    if (values.length > 0) {
      out.push(forbidden(valuesPath, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    }
  } else if (operator === "Gt" || operator === "Lt") {
    if (values.length !== 1) {
      out.push(required(valuesPath, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
    }
  } else {
    out.push(invalid(child(path, "operator"), operator, "not a valid selector operator"));
  }
  checkQualifiedName(readString(requirement.key, child(path, "key"), out) ?? "", child(path, "key"), out);
  values.forEach((value, position) => {
    checkLabelValue(value, index(valuesPath, position), out);
  });
}

function validateFieldExpression(requirement: JsonObject, path: string, out: FieldCause[]): void {
  const operator = readString(requirement.operator, child(path, "operator"), out) ?? "";
  const valuesPath = child(path, "values");
  const values = readStringList(requirement.values, valuesPath, out) ?? [];
  if (operator === "In" || operator === "NotIn") {
    if (values.length !== 1) {
      out.push(
        required(valuesPath, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"),
      );
    }
  } else {
    out.push(invalid(child(path, "operator"), operator, "not a valid selector operator"));
  }
  const fieldKey = readString(requirement.key, child(path, "key"), out) ?? "";
  if (fieldKey !== nodeNameField) {
    out.push(invalid(child(path, "key"), fieldKey, "not a valid field selector key"));
    return;
  }
  values.forEach((value, position) => {
    for (const problem of nameIsDnsSubdomain(value, false))
      out.push(invalid(index(valuesPath, position), value, problem));
  });
}

function validateNodeSelectorTerm(term: JsonObject, path: string, out: FieldCause[]): void {
  for (const entry of readObjectList(term.matchExpressions, child(path, "matchExpressions"), out)) {
    validateExpression(entry.value, entry.path, out);
  }
  for (const entry of readObjectList(term.matchFields, child(path, "matchFields"), out)) {
    validateFieldExpression(entry.value, entry.path, out);
  }
}

export function validateNodeSelector(selector: JsonObject, path: string, out: FieldCause[]): void {
  const termsPath = child(path, "nodeSelectorTerms");
  const terms = readObjectList(selector.nodeSelectorTerms, termsPath, out);
  if (terms.length === 0) {
    out.push(required(termsPath, "must have at least one node selector term"));
    return;
  }
  for (const term of terms) validateNodeSelectorTerm(term.value, term.path, out);
}

/** A PersistentVolume's nodeAffinity: `required` must be there and be a valid node selector. */
export function validateVolumeNodeAffinity(affinity: JsonObject, path: string, out: FieldCause[]): void {
  const requiredPath = child(path, "required");
  const requiredSelector = readObject(affinity.required, requiredPath, out);
  if (requiredSelector === undefined) {
    out.push(required(requiredPath, "must specify required node constraints"));
    return;
  }
  validateNodeSelector(requiredSelector, requiredPath, out);
}
