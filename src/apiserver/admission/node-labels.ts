/**
 * NodeRestriction's rules for a node's own Node object: a kubelet may not set, change or remove
 * labels that steer workloads — any label under `node-restriction.kubernetes.io/`, and any
 * `kubernetes.io` / `k8s.io` label outside the kubelet's own set (hostname, zone, region,
 * instance type, os, arch, and the `kubelet.kubernetes.io` and `node.kubernetes.io` prefixes) — and
 * may not change its taints after registering. Wording as kube-apiserver's.
 */
import type { Node } from "../../api/objects.ts";
import { jsonEqual } from "../../api/store/json-equal.ts";

const nodeRestrictionLabelNamespace = "node-restriction.kubernetes.io";

/** The labels a kubelet sets on its own Node (kubeletapis.IsKubeletLabel). */
const kubeletLabels: ReadonlySet<string> = new Set([
  "kubernetes.io/hostname",
  "topology.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "failure-domain.beta.kubernetes.io/zone",
  "failure-domain.beta.kubernetes.io/region",
  "beta.kubernetes.io/instance-type",
  "node.kubernetes.io/instance-type",
  "kubernetes.io/os",
  "kubernetes.io/arch",
  "beta.kubernetes.io/os",
  "beta.kubernetes.io/arch",
]);

const kubeletLabelNamespaces: readonly string[] = ["kubelet.kubernetes.io", "node.kubernetes.io"];

function labelNamespace(key: string): string {
  const slash = key.indexOf("/");
  return slash < 0 ? "" : key.slice(0, slash);
}

function inNamespace(namespace: string, domain: string): boolean {
  return namespace === domain || namespace.endsWith(`.${domain}`);
}

function isKubeletLabel(key: string): boolean {
  if (kubeletLabels.has(key)) return true;
  const namespace = labelNamespace(key);
  return kubeletLabelNamespaces.some((domain) => inNamespace(namespace, domain));
}

function isKubernetesLabel(key: string): boolean {
  const namespace = labelNamespace(key);
  return inNamespace(namespace, "kubernetes.io") || inNamespace(namespace, "k8s.io");
}

function isForbidden(key: string): boolean {
  if (inNamespace(labelNamespace(key), nodeRestrictionLabelNamespace)) return true;
  return isKubernetesLabel(key) && !isKubeletLabel(key);
}

/** The label keys added, removed or changed between two label maps, that a node may not touch; sorted. */
export function forbiddenLabelChanges(next: Node["metadata"], previous: Node["metadata"] | undefined): string[] {
  const after = next?.labels ?? {};
  const before = previous?.labels ?? {};
  const changed = new Set<string>();
  for (const key of Object.keys(after)) if (!Object.hasOwn(before, key) || before[key] !== after[key]) changed.add(key);
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) changed.add(key);
  return [...changed].filter(isForbidden).sort();
}

/** Taints compared as Kubernetes' semantic equality does: no taints and an empty list are the same. */
export function taintsChanged(next: Node, previous: Node): boolean {
  const after = next.spec?.taints ?? [];
  const before = previous.spec?.taints ?? [];
  return !jsonEqual(after, before);
}
