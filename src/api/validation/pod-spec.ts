/**
 * A pod spec (core's ValidatePodSpec, the parts kvol's components act on): volumes, containers and
 * their mounts, restart policy, node name, tolerations and node affinity. Used for pods and for
 * the pod templates of workloads.
 */
import type { FieldCause } from "../errors.ts";
import { validateContainers } from "./containers.ts";
import { checkDnsSubdomain, checkOneOf, inclusiveRangeMessage } from "./field-checks.ts";
import { invalid } from "./field-errors.ts";
import { child } from "./field-path.ts";
import { type JsonObject, readInteger, readObject, readString } from "./json-reader.ts";
import { validateLabels } from "./labels.ts";
import { validateNodeSelector } from "./node-selector.ts";
import { validatePodVolumes } from "./pod-volumes.ts";
import { validateTolerations } from "./tolerations.ts";

const restartPolicies = ["Always", "OnFailure", "Never"] as const;
/** activeDeadlineSeconds must fit an int32 and be at least one second. */
export const maxActiveDeadlineSeconds = 2 ** 31 - 1;

interface PodSpecContext {
  /** The pod's name; empty for templates, whose pods are named later. */
  podName: string;
  /** Volume names a workload adds as claims (a StatefulSet's volumeClaimTemplates). */
  claimTemplateNames?: readonly string[];
}

function validateAffinity(spec: JsonObject, path: string, out: FieldCause[]): void {
  const affinityPath = child(path, "affinity");
  const nodeAffinityPath = child(affinityPath, "nodeAffinity");
  const affinity = readObject(spec.affinity, affinityPath, out);
  const nodeAffinity = readObject(affinity?.nodeAffinity, nodeAffinityPath, out);
  const requiredPath = child(nodeAffinityPath, "requiredDuringSchedulingIgnoredDuringExecution");
  const requiredSelector = readObject(nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution, requiredPath, out);
  if (requiredSelector !== undefined) validateNodeSelector(requiredSelector, requiredPath, out);
}

export function validatePodSpec(spec: JsonObject, path: string, context: PodSpecContext, out: FieldCause[]): void {
  const volumes = new Map(validatePodVolumes(spec.volumes, child(path, "volumes"), context.podName, out));
  // A StatefulSet's claim templates become claim volumes of the same name in each pod.
  for (const name of context.claimTemplateNames ?? []) volumes.set(name, "persistentVolumeClaim");
  validateContainers(spec, path, volumes, out);
  const restartPath = child(path, "restartPolicy");
  checkOneOf(readString(spec.restartPolicy, restartPath, out), restartPolicies, restartPath, out);
  const nodeName = readString(spec.nodeName, child(path, "nodeName"), out) ?? "";
  if (nodeName !== "") checkDnsSubdomain(nodeName, child(path, "nodeName"), out);
  const deadlinePath = child(path, "activeDeadlineSeconds");
  const deadline = readInteger(spec.activeDeadlineSeconds, deadlinePath, out);
  if (deadline !== undefined && (deadline < 1 || deadline > maxActiveDeadlineSeconds)) {
    out.push(invalid(deadlinePath, deadline, inclusiveRangeMessage(1, maxActiveDeadlineSeconds)));
  }
  readInteger(spec.terminationGracePeriodSeconds, child(path, "terminationGracePeriodSeconds"), out);
  validateTolerations(spec.tolerations, child(path, "tolerations"), out);
  validateLabels(spec.nodeSelector, child(path, "nodeSelector"), out);
  validateAffinity(spec, path, out);
}
