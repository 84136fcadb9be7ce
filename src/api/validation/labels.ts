/**
 * Labels, annotations and label selectors (metav1 validation): keys are qualified names, label
 * values at most 63 characters, annotations at most 256 KiB in total.
 */
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import type { FieldCause } from "../errors.ts";
import { labelMatcherFromSelector } from "../selectors/labels.ts";
import { checkQualifiedName } from "./field-checks.ts";
import { forbidden, invalid, required, tooLong } from "./field-errors.ts";
import { child, index } from "./field-path.ts";
import {
  type JsonObject,
  readArray,
  readObjectList,
  readString,
  readStringList,
  readStringMap,
} from "./json-reader.ts";
import { byteLength, labelValueProblems, qualifiedNameProblems } from "./names.ts";

/** Kubernetes' TotalAnnotationSizeLimitB: keys and values together. */
const totalAnnotationSizeLimitBytes = 256 * 1024;

export function checkLabelValue(value: string, path: string, out: FieldCause[]): void {
  for (const problem of labelValueProblems(value)) out.push(invalid(path, value, problem));
}

/** Reads and checks a label map; every problem is reported at the map's own path, as Kubernetes does. */
export function validateLabels(
  value: unknown,
  path: string,
  out: FieldCause[],
): Readonly<Record<string, string>> | undefined {
  const labels = readStringMap(value, path, out);
  for (const [labelKey, labelValue] of Object.entries(labels ?? {})) {
    checkQualifiedName(labelKey, path, out);
    checkLabelValue(labelValue, path, out);
  }
  return labels;
}

export function validateAnnotations(value: unknown, path: string, out: FieldCause[]): void {
  const annotations = readStringMap(value, path, out) ?? {};
  let totalBytes = 0;
  for (const [annotationKey, annotationValue] of Object.entries(annotations)) {
    // Annotation keys are qualified names except that case does not matter.
    for (const problem of qualifiedNameProblems(annotationKey.toLowerCase())) {
      out.push(invalid(path, annotationKey, problem));
    }
    totalBytes += byteLength(annotationKey) + byteLength(annotationValue);
  }
  if (totalBytes > totalAnnotationSizeLimitBytes) out.push(tooLong(path, totalAnnotationSizeLimitBytes));
}

function validateSelectorRequirement(requirement: JsonObject, path: string, out: FieldCause[]): void {
  const operator = readString(requirement.operator, child(path, "operator"), out) ?? "";
  const values = readStringList(requirement.values, child(path, "values"), out) ?? [];
  if (operator === "In" || operator === "NotIn") {
    if (values.length === 0) {
      out.push(required(child(path, "values"), "must be specified when `operator` is 'In' or 'NotIn'"));
    }
  } else if (operator === "Exists" || operator === "DoesNotExist") {
    if (values.length > 0) {
      out.push(forbidden(child(path, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    }
  } else {
    out.push(invalid(child(path, "operator"), operator, "not a valid selector operator"));
  }
  checkQualifiedName(readString(requirement.key, child(path, "key"), out) ?? "", child(path, "key"), out);
  values.forEach((value, position) => {
    checkLabelValue(value, index(child(path, "values"), position), out);
  });
}

/** A metav1.LabelSelector (matchLabels and matchExpressions). */
export function validateLabelSelector(selector: JsonObject, path: string, out: FieldCause[]): void {
  validateLabels(selector.matchLabels, child(path, "matchLabels"), out);
  for (const entry of readObjectList(selector.matchExpressions, child(path, "matchExpressions"), out)) {
    validateSelectorRequirement(entry.value, entry.path, out);
  }
}

/** True when the selector has neither matchLabels nor matchExpressions. */
export function isEmptySelector(selector: JsonObject): boolean {
  const matchLabels = selector.matchLabels;
  const labelCount = typeof matchLabels === "object" && matchLabels !== null ? Object.keys(matchLabels).length : 0;
  const expressions = readArray(selector.matchExpressions, "", []);
  return labelCount + (expressions?.length ?? 0) === 0;
}

/** Whether labels satisfy a selector that validateLabelSelector found valid. */
export function selectorMatches(selector: JsonObject, labels: Readonly<Record<string, string>> | undefined): boolean {
  return labelMatcherFromSelector(selector as LabelSelector).matches(labels ?? {});
}
