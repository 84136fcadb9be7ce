/**
 * What StatefulSets, ReplicaSets and Deployments share: a selector that is required, not empty and
 * matches the template's labels, and a pod template whose pods can actually run (validated with
 * the pod rules under `spec.template.spec`, so a broken mount is reported when the workload is
 * applied rather than when its first pod fails to be created).
 */
import type { FieldCause } from "../errors.ts";
import { forbidden, goStringMap, invalid, notSupported, required } from "./field-errors.ts";
import { child } from "./field-path.ts";
import { type JsonObject, readObject, readString } from "./json-reader.ts";
import {
  isEmptySelector,
  selectorMatches,
  validateAnnotations,
  validateLabelSelector,
  validateLabels,
} from "./labels.ts";
import { validatePodSpec } from "./pod-spec.ts";

interface WorkloadRules {
  /** The kind as Kubernetes names it in "activeDeadlineSeconds in <Kind> is not Supported". */
  ownerKind: "StatefulSet" | "ReplicaSet";
  /** The word in "empty selector is invalid for <word>" (Kubernetes says deployment for ReplicaSets too). */
  selectorWord: "statefulset" | "deployment";
  /** A StatefulSet's volumeClaimTemplates, which its pods get as claim volumes. */
  claimTemplateNames?: readonly string[];
}

/** Validates the selector; returns it when it is usable for matching. */
function validateSelector(spec: JsonObject, specPath: string, rules: WorkloadRules, out: FieldCause[]) {
  const selectorPath = child(specPath, "selector");
  const selector = readObject(spec.selector, selectorPath, out);
  if (selector === undefined) {
    if (!out.some((cause) => cause.field === selectorPath)) out.push(required(selectorPath));
    return undefined;
  }
  const problems: FieldCause[] = [];
  validateLabelSelector(selector, selectorPath, problems);
  out.push(...problems);
  if (isEmptySelector(selector)) {
    out.push(invalid(selectorPath, selector, `empty selector is invalid for ${rules.selectorWord}`));
    return undefined;
  }
  return problems.length === 0 ? selector : undefined;
}

export function validateSelectorAndTemplate(
  spec: JsonObject,
  specPath: string,
  rules: WorkloadRules,
  out: FieldCause[],
) {
  const selector = validateSelector(spec, specPath, rules, out);
  const templatePath = child(specPath, "template");
  const template = readObject(spec.template, templatePath, out) ?? {};
  const metadataPath = child(templatePath, "metadata");
  const metadata = readObject(template.metadata, metadataPath, out) ?? {};
  const labels = validateLabels(metadata.labels, child(metadataPath, "labels"), out);
  validateAnnotations(metadata.annotations, child(metadataPath, "annotations"), out);
  if (selector !== undefined && !selectorMatches(selector, labels)) {
    out.push(
      invalid(child(metadataPath, "labels"), goStringMap(labels), "`selector` does not match template `labels`"),
    );
  }
  const podSpecPath = child(templatePath, "spec");
  const podSpec = readObject(template.spec, podSpecPath, out) ?? {};
  validatePodSpec(podSpec, podSpecPath, { podName: "", claimTemplateNames: rules.claimTemplateNames ?? [] }, out);
  const restartPolicy = readString(podSpec.restartPolicy, "", []);
  // Workload pods are always restarted; Always is also the default.
  if (restartPolicy !== undefined && restartPolicy !== "Always") {
    out.push(notSupported(child(podSpecPath, "restartPolicy"), restartPolicy, ["Always"]));
  }
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    out.push(
      forbidden(
        child(podSpecPath, "activeDeadlineSeconds"),
        `activeDeadlineSeconds in ${rules.ownerKind} is not Supported`,
      ),
    );
  }
}
