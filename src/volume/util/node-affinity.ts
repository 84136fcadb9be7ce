/**
 * Whether a PV may be used on a node (Kubernetes' volumeutil.CheckNodeAffinity): the PV's required
 * node affinity must match the node's labels (and name). The kubelet checks it before mounting a
 * local volume, failing with `MountVolume.NodeAffinity check failed for volume ...`.
 */
import type { Node, NodeSelectorRequirement, NodeSelectorTerm, PersistentVolume } from "kubernetes-types/core/v1.js";

function matchesRequirement(requirement: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      const actual = Number.parseInt(value ?? "", 10);
      const bound = Number.parseInt(values[0] ?? "", 10);
      if (!Number.isInteger(actual) || !Number.isInteger(bound) || values.length !== 1) return false;
      return requirement.operator === "Gt" ? actual > bound : actual < bound;
    }
    default:
      throw new Error(`${requirement.operator} is not a valid node selector operator`);
  }
}

/** A term with no requirements matches nothing, as in Kubernetes. */
function matchesTerm(term: NodeSelectorTerm, node: Node): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata?.labels ?? {};
  const labelsMatch = expressions.every((requirement) => matchesRequirement(requirement, labels[requirement.key]));
  const fieldsMatch = fields.every((requirement) => {
    if (requirement.key !== "metadata.name") throw new Error(`not a valid field selector key: ${requirement.key}`);
    return matchesRequirement(requirement, node.metadata?.name);
  });
  return labelsMatch && fieldsMatch;
}

/** Throws `no matching NodeSelectorTerms` when the PV's required affinity excludes `node`. */
export function checkNodeAffinity(pv: PersistentVolume, node: Node): void {
  const required = pv.spec?.nodeAffinity?.required;
  if (required === undefined) return;
  if (!required.nodeSelectorTerms.some((term) => matchesTerm(term, node))) {
    throw new Error("no matching NodeSelectorTerms");
  }
}
