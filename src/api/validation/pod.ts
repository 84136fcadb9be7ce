/**
 * Pod validation and Kubernetes' pod update rules: after creation only container images,
 * activeDeadlineSeconds (lowered), added tolerations and, once, the node name (the scheduler's
 * binding) may change. Volumes in particular are fixed for the pod's life.
 */

import type { FieldCause } from "../errors.ts";
import { inclusiveRangeMessage } from "./field-checks.ts";
import { forbidden, invalid, required } from "./field-errors.ts";
import { child, index } from "./field-path.ts";
import { isJsonObject, type JsonObject, listLength, readObject, readObjectList } from "./json-reader.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import {
  type MetaRules,
  validateChangedObjectMeta,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "./object-meta.ts";
import { maxActiveDeadlineSeconds, validatePodSpec } from "./pod-spec.ts";
import { canonicalQuantity, canonicalResourceList, differingFields, semanticEqual } from "./semantic-equal.ts";
import { specUnchanged } from "./unchanged-spec.ts";

const podMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };

/** Kubernetes' updatablePodSpecFields, joined with "," as it joins them. */
const updatablePodSpecFields = [
  "`spec.containers[*].image`",
  "`spec.initContainers[*].image`",
  "`spec.activeDeadlineSeconds`",
  "`spec.tolerations` (only additions to existing tolerations)",
  "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
].join(",");

function specOf(pod: JsonObject): JsonObject {
  return readObject(pod.spec, "", []) ?? {};
}

function podName(pod: JsonObject): string {
  const meta = readObject(pod.metadata, "", []) ?? {};
  return typeof meta.name === "string" ? meta.name : "";
}

export function validatePod(pod: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(pod.metadata, podMeta, out);
  validatePodSpec(readObject(pod.spec, "spec", out) ?? {}, "spec", { podName: podName(pod) }, out);
}

/** Container counts may not change; images must stay set and trimmed. Returns false to stop checking. */
function validateContainerUpdates(field: string, newSpec: JsonObject, oldSpec: JsonObject, out: FieldCause[]): boolean {
  const path = child("spec", field);
  if (listLength(newSpec[field]) !== listLength(oldSpec[field])) {
    out.push(forbidden(path, "pod updates may not add or remove containers"));
    return false;
  }
  const containers = Array.isArray(newSpec[field]) ? (newSpec[field] as unknown[]) : [];
  containers.forEach((container, position) => {
    const image = isJsonObject(container) && typeof container.image === "string" ? container.image : "";
    const imagePath = child(index(path, position), "image");
    if (image === "") out.push(required(imagePath));
    else if (image.trim() !== image)
      out.push(invalid(imagePath, image, "must not have leading or trailing whitespace"));
  });
  return true;
}

/** activeDeadlineSeconds may be set, or lowered, but never raised or removed. */
function validateDeadlineUpdate(newSpec: JsonObject, oldSpec: JsonObject, out: FieldCause[]): void {
  const path = "spec.activeDeadlineSeconds";
  const newDeadline = typeof newSpec.activeDeadlineSeconds === "number" ? newSpec.activeDeadlineSeconds : undefined;
  const oldDeadline = typeof oldSpec.activeDeadlineSeconds === "number" ? oldSpec.activeDeadlineSeconds : undefined;
  if (newDeadline === undefined) {
    if (oldDeadline !== undefined)
      out.push(invalid(path, null, "must not update from a positive integer to nil value"));
    return;
  }
  if (newDeadline < 0 || newDeadline > maxActiveDeadlineSeconds) {
    out.push(invalid(path, newDeadline, inclusiveRangeMessage(0, maxActiveDeadlineSeconds)));
  } else if (oldDeadline !== undefined && oldDeadline < newDeadline) {
    out.push(invalid(path, newDeadline, "must be less than or equal to previous value"));
  }
}

/** Two tolerations alike in everything but tolerationSeconds (semanticEqual, that field left out). */
function sameButSeconds(a: unknown, b: unknown): boolean {
  if (!isJsonObject(a) || !isJsonObject(b)) return semanticEqual(a, b);
  for (const field of Object.keys(a)) {
    if (field !== "tolerationSeconds" && !semanticEqual(a[field], b[field])) return false;
  }
  for (const field of Object.keys(b)) {
    if (field !== "tolerationSeconds" && !Object.hasOwn(a, field) && !semanticEqual(a[field], b[field])) return false;
  }
  return true;
}

/** Every existing toleration must still be there; only its tolerationSeconds may change. */
function validateTolerationUpdate(newSpec: JsonObject, oldSpec: JsonObject, out: FieldCause[]): void {
  const newTolerations = Array.isArray(newSpec.tolerations) ? newSpec.tolerations : [];
  const oldTolerations = Array.isArray(oldSpec.tolerations) ? oldSpec.tolerations : [];
  const kept = oldTolerations.every((old) => newTolerations.some((candidate) => sameButSeconds(old, candidate)));
  if (!kept)
    out.push(forbidden("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds"));
}

function schedulingGateNames(spec: JsonObject): string[] {
  return readObjectList(spec.schedulingGates, "", []).map((entry) =>
    typeof entry.value.name === "string" ? entry.value.name : "",
  );
}

/** Scheduling gates may only be removed (the scheduler waits for them to go). */
function validateSchedulingGateUpdate(newSpec: JsonObject, oldSpec: JsonObject, out: FieldCause[]): void {
  const oldGates = new Set(schedulingGateNames(oldSpec));
  schedulingGateNames(newSpec).forEach((gate, position) => {
    if (oldGates.has(gate)) return;
    const path = child(index("spec.schedulingGates", position), "name");
    out.push(forbidden(path, `only deletion is allowed, but found new scheduling gate '${gate}'`));
  });
}

function canonicalContainer(container: unknown): unknown {
  if (!isJsonObject(container) || !isJsonObject(container.resources)) return container;
  const { limits, requests } = container.resources;
  const resources = {
    ...container.resources,
    limits: canonicalResourceList(limits),
    requests: canonicalResourceList(requests),
  };
  return { ...container, resources };
}

function canonicalVolume(volume: unknown): unknown {
  if (!isJsonObject(volume) || !isJsonObject(volume.emptyDir)) return volume;
  return { ...volume, emptyDir: { ...volume.emptyDir, sizeLimit: canonicalQuantity(volume.emptyDir.sizeLimit) } };
}

function mapList(list: unknown, map: (element: unknown) => unknown): unknown {
  return Array.isArray(list) ? list.map(map) : list;
}

/** Quantities in canonical form, so an unchanged amount written differently is not a change. */
function withCanonicalQuantities(spec: JsonObject): JsonObject {
  return {
    ...spec,
    containers: mapList(spec.containers, canonicalContainer),
    initContainers: mapList(spec.initContainers, canonicalContainer),
    volumes: mapList(spec.volumes, canonicalVolume),
  };
}

/** Containers with the images of the old spec's containers at the same positions. */
function withOldImages(containers: unknown, oldContainers: unknown): unknown {
  if (!Array.isArray(containers)) return containers;
  return containers.map((container: unknown, position) => {
    const old: unknown = Array.isArray(oldContainers) ? oldContainers[position] : undefined;
    return isJsonObject(container) ? { ...container, image: isJsonObject(old) ? old.image : undefined } : container;
  });
}

/** The new spec with every field that may change set back to the old value. */
function withoutUpdatableFields(newSpec: JsonObject, oldSpec: JsonObject): JsonObject {
  const oldGrace = oldSpec.terminationGracePeriodSeconds;
  const graceRelaxed = typeof oldGrace === "number" && oldGrace < 0 && newSpec.terminationGracePeriodSeconds === 1;
  return {
    ...newSpec,
    containers: withOldImages(newSpec.containers, oldSpec.containers),
    initContainers: withOldImages(newSpec.initContainers, oldSpec.initContainers),
    activeDeadlineSeconds: oldSpec.activeDeadlineSeconds,
    tolerations: oldSpec.tolerations,
    schedulingGates: oldSpec.schedulingGates,
    terminationGracePeriodSeconds: graceRelaxed ? oldGrace : newSpec.terminationGracePeriodSeconds,
    // Binding a pod to a node sets nodeName once (Kubernetes does it through pods/binding).
    nodeName: oldSpec.nodeName ? newSpec.nodeName : oldSpec.nodeName,
  };
}

export function validatePodUpdate(newPod: JsonObject, oldPod: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(newPod.metadata, oldPod.metadata, out);
  if (specUnchanged(newPod, oldPod)) {
    validateChangedObjectMeta(newPod.metadata, oldPod.metadata, podMeta, out);
    return;
  }
  validatePod(newPod, out);
  const newSpec = specOf(newPod);
  const oldSpec = specOf(oldPod);
  if (!validateContainerUpdates("containers", newSpec, oldSpec, out)) return;
  if (!validateContainerUpdates("initContainers", newSpec, oldSpec, out)) return;
  validateDeadlineUpdate(newSpec, oldSpec, out);
  validateTolerationUpdate(newSpec, oldSpec, out);
  validateSchedulingGateUpdate(newSpec, oldSpec, out);
  // Most pod writes leave the spec alone; only a changed spec needs the field-by-field comparison.
  if (semanticEqual(newSpec, oldSpec)) return;
  const comparableNew = withCanonicalQuantities(withoutUpdatableFields(newSpec, oldSpec));
  const comparableOld = withCanonicalQuantities(oldSpec);
  if (semanticEqual(comparableNew, comparableOld)) return;
  const changed = differingFields(comparableOld, comparableNew, "spec").join(", ");
  out.push(
    forbidden("spec", `pod updates may not change fields other than ${updatablePodSpecFields}\nchanged: ${changed}`),
  );
}
