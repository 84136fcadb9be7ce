/**
 * Job validation (batch's ValidateJob): counts that are not negative, a deadline above zero, a
 * selector that matches the template (the API server generates both unless `manualSelector`), a
 * pod template whose restart policy is OnFailure or Never (a Job's pods finish), and on update a
 * template, selector and completions that never change.
 */
import type { FieldCause } from "../errors.ts";
import { checkNonNegative, immutableMessage } from "./field-checks.ts";
import { goStringMap, invalid, notSupported, required } from "./field-errors.ts";
import { child } from "./field-path.ts";
import { type JsonObject, readInteger, readObject, readString } from "./json-reader.ts";
import {
  isEmptySelector,
  selectorMatches,
  validateAnnotations,
  validateLabelSelector,
  validateLabels,
} from "./labels.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { validatePodSpec } from "./pod-spec.ts";
import { semanticEqual } from "./semantic-equal.ts";

const jobMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };
const jobRestartPolicies = ["OnFailure", "Never"] as const;

function validateCounts(spec: JsonObject, out: FieldCause[]): void {
  for (const field of ["parallelism", "completions", "backoffLimit"]) {
    const path = child("spec", field);
    checkNonNegative(readInteger(spec[field], path, out), path, out);
  }
  const deadlinePath = "spec.activeDeadlineSeconds";
  const deadline = readInteger(spec.activeDeadlineSeconds, deadlinePath, out);
  if (deadline !== undefined && deadline <= 0) out.push(invalid(deadlinePath, deadline, "must be greater than 0"));
}

function validateTemplate(spec: JsonObject, out: FieldCause[]): void {
  const selector = readObject(spec.selector, "spec.selector", out);
  if (selector === undefined) out.push(required("spec.selector"));
  else {
    validateLabelSelector(selector, "spec.selector", out);
    if (isEmptySelector(selector)) out.push(invalid("spec.selector", selector, "empty selector is invalid for job"));
  }
  const template = readObject(spec.template, "spec.template", out) ?? {};
  const metadata = readObject(template.metadata, "spec.template.metadata", out) ?? {};
  const labels = validateLabels(metadata.labels, "spec.template.metadata.labels", out);
  validateAnnotations(metadata.annotations, "spec.template.metadata.annotations", out);
  if (selector !== undefined && !isEmptySelector(selector) && !selectorMatches(selector, labels)) {
    out.push(
      invalid("spec.template.metadata.labels", goStringMap(labels), "`selector` does not match template `labels`"),
    );
  }
  const podSpec = readObject(template.spec, "spec.template.spec", out) ?? {};
  validatePodSpec(podSpec, "spec.template.spec", { podName: "" }, out);
  const restartPolicy = readString(podSpec.restartPolicy, "", []) ?? "";
  if (!(jobRestartPolicies as readonly string[]).includes(restartPolicy)) {
    out.push(notSupported("spec.template.spec.restartPolicy", restartPolicy, jobRestartPolicies));
  }
}

export function validateJob(job: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(job.metadata, jobMeta, out);
  const spec = readObject(job.spec, "spec", out) ?? {};
  validateCounts(spec, out);
  validateTemplate(spec, out);
}

export function validateJobUpdate(job: JsonObject, old: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(job.metadata, old.metadata, out);
  validateJob(job, out);
  const spec = readObject(job.spec, "spec", []) ?? {};
  const oldSpec = readObject(old.spec, "spec", []) ?? {};
  for (const field of ["template", "selector", "completions"]) {
    if (!semanticEqual(spec[field], oldSpec[field]))
      out.push(invalid(child("spec", field), spec[field], immutableMessage));
  }
}
