/**
 * Deployment validation (apps' ValidateDeployment): replicas, selector and pod template, and the
 * rollout strategy — a RollingUpdate may not have both maxSurge and maxUnavailable at zero, or it
 * could never make progress.
 */
import type { FieldCause } from "../errors.ts";
import { checkNonNegative } from "./field-checks.ts";
import { forbidden, invalid, notSupported } from "./field-errors.ts";
import { child } from "./field-path.ts";
import { checkIntOrPercent, checkNotMoreThan100Percent, intOrPercentValue } from "./int-or-percent.ts";
import { type JsonObject, readInteger, readIntOrString, readObject, readString } from "./json-reader.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { validateSelectorAndTemplate } from "./workload-template.ts";

const deploymentMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };
const strategyTypes = ["Recreate", "RollingUpdate"] as const;
/** Kubernetes defaults both maxSurge and maxUnavailable to 25%. */
const defaultRollingUpdateLimit = "25%";

function validateRollingUpdate(rollingUpdate: JsonObject, path: string, out: FieldCause[]): void {
  const maxUnavailablePath = child(path, "maxUnavailable");
  const maxSurgePath = child(path, "maxSurge");
  const maxUnavailable =
    readIntOrString(rollingUpdate.maxUnavailable, maxUnavailablePath, out) ?? defaultRollingUpdateLimit;
  const maxSurge = readIntOrString(rollingUpdate.maxSurge, maxSurgePath, out) ?? defaultRollingUpdateLimit;
  checkIntOrPercent(maxUnavailable, maxUnavailablePath, out);
  checkIntOrPercent(maxSurge, maxSurgePath, out);
  if (intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0) {
    out.push(invalid(maxUnavailablePath, maxUnavailable, "may not be 0 when `maxSurge` is 0"));
  }
  checkNotMoreThan100Percent(maxUnavailable, maxUnavailablePath, out);
}

function validateStrategy(spec: JsonObject, out: FieldCause[]): void {
  const path = "spec.strategy";
  const strategy = readObject(spec.strategy, path, out) ?? {};
  const type = readString(strategy.type, child(path, "type"), out) ?? "RollingUpdate";
  const rollingUpdate = readObject(strategy.rollingUpdate, child(path, "rollingUpdate"), out);
  if (type === "Recreate") {
    if (rollingUpdate !== undefined) {
      out.push(forbidden(child(path, "rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"));
    }
  } else if (type === "RollingUpdate") {
    validateRollingUpdate(rollingUpdate ?? {}, child(path, "rollingUpdate"), out);
  } else {
    out.push(notSupported(child(path, "type"), type, strategyTypes));
  }
}

export function validateDeployment(deployment: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(deployment.metadata, deploymentMeta, out);
  const spec = readObject(deployment.spec, "spec", out) ?? {};
  checkNonNegative(readInteger(spec.replicas, "spec.replicas", out), "spec.replicas", out);
  validateSelectorAndTemplate(spec, "spec", { ownerKind: "ReplicaSet", selectorWord: "deployment" }, out);
  validateStrategy(spec, out);
  const minReadySeconds = readInteger(spec.minReadySeconds, "spec.minReadySeconds", out) ?? 0;
  checkNonNegative(minReadySeconds, "spec.minReadySeconds", out);
  const historyPath = "spec.revisionHistoryLimit";
  checkNonNegative(readInteger(spec.revisionHistoryLimit, historyPath, out), historyPath, out);
  const deadlinePath = "spec.progressDeadlineSeconds";
  const deadline = readInteger(spec.progressDeadlineSeconds, deadlinePath, out);
  checkNonNegative(deadline, deadlinePath, out);
  if (deadline !== undefined && deadline <= minReadySeconds) {
    out.push(invalid(deadlinePath, deadline, "must be greater than minReadySeconds"));
  }
}

export function validateDeploymentUpdate(
  newDeployment: JsonObject,
  oldDeployment: JsonObject,
  out: FieldCause[],
): void {
  validateObjectMetaUpdate(newDeployment.metadata, oldDeployment.metadata, out);
  validateDeployment(newDeployment, out);
}
