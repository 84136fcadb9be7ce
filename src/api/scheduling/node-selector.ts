/**
 * Node selection as component-helpers/scheduling/corev1 matches it: a pod's `nodeSelector`, the
 * terms of a required node affinity (the pod's, or a PersistentVolume's), and a StorageClass's
 * `allowedTopologies`. Shared by the scheduler and anything else that must agree with it.
 *
 * Semantics:
 * - terms are ORed, the requirements inside a term ANDed; a term with no requirements matches
 *   nothing, and a term with a malformed requirement (wrong number of values, a Gt/Lt bound that
 *   is not an integer, an unknown operator or field) is skipped rather than failing the others;
 * - `NotIn` and `DoesNotExist` match nodes that lack the label; `Gt`/`Lt` compare integers and
 *   never match a label that is not one;
 * - `matchFields` supports `metadata.name` with `In`/`NotIn` and exactly one value.
 */
import type {
  Node,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  TopologySelectorTerm,
} from "kubernetes-types/core/v1.js";

type Labels = Readonly<Record<string, string>>;

const integerPattern = /^[-+]?[0-9]+$/;

function parseInteger(text: string | undefined): bigint | undefined {
  return text !== undefined && integerPattern.test(text) ? BigInt(text) : undefined;
}

/** labels.NewRequirement's value-count rules; a requirement that breaks them is malformed. */
function wellFormed(requirement: NodeSelectorRequirement): boolean {
  const count = (requirement.values ?? []).length;
  switch (requirement.operator) {
    case "In":
    case "NotIn":
      return count > 0;
    case "Exists":
    case "DoesNotExist":
      return count === 0;
    case "Gt":
    case "Lt":
      return count === 1 && parseInteger(requirement.values?.[0]) !== undefined;
    default:
      return false;
  }
}

/** One label requirement against one value (`undefined`: the node lacks the label). Assumes wellFormed. */
function valueMatches(requirement: NodeSelectorRequirement, value: string | undefined): boolean {
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
    default: {
      const actual = parseInteger(value);
      const bound = parseInteger(values[0]) as bigint;
      if (actual === undefined) return false;
      return requirement.operator === "Gt" ? actual > bound : actual < bound;
    }
  }
}

function labelValue(labels: Labels, key: string): string | undefined {
  return Object.hasOwn(labels, key) ? labels[key] : undefined;
}

/** A field requirement is well formed for `metadata.name`, In or NotIn, and exactly one value. */
function fieldWellFormed(requirement: NodeSelectorRequirement): boolean {
  return (
    requirement.key === "metadata.name" &&
    (requirement.operator === "In" || requirement.operator === "NotIn") &&
    (requirement.values ?? []).length === 1
  );
}

/** The term's verdict, or undefined when the term is empty or malformed (and so selects nothing). */
function termMatches(term: NodeSelectorTerm, node: Node): boolean | undefined {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return undefined;
  if (!expressions.every(wellFormed) || !fields.every(fieldWellFormed)) return undefined;
  const labels = node.metadata?.labels ?? {};
  const name = node.metadata?.name;
  return (
    expressions.every((requirement) => valueMatches(requirement, labelValue(labels, requirement.key))) &&
    fields.every((requirement) => valueMatches(requirement, name))
  );
}

/** MatchNodeSelectorTerms: true when at least one term matches `node`. */
export function matchesNodeSelectorTerms(node: Node, terms: readonly NodeSelectorTerm[]): boolean {
  return terms.some((term) => termMatches(term, node) === true);
}

/** A pod's `spec.nodeSelector`: every key present on the node with exactly that value. */
export function matchesNodeSelectorMap(nodeSelector: Labels | undefined, node: Node): boolean {
  if (nodeSelector === undefined) return true;
  const labels = node.metadata?.labels ?? {};
  return Object.entries(nodeSelector).every(([key, value]) => labelValue(labels, key) === value);
}

/**
 * MatchTopologySelectorTerms (a StorageClass's allowedTopologies): no terms allow every node; each
 * term's expressions are `key in (values)` requirements ANDed; an empty term selects nothing.
 */
export function matchesTopologySelectorTerms(
  terms: readonly TopologySelectorTerm[] | undefined,
  labels: Labels,
): boolean {
  if (terms === undefined || terms.length === 0) return true;
  return terms.some((term) => {
    const expressions = term.matchLabelExpressions ?? [];
    if (expressions.length === 0) return false;
    return expressions.every((expression) => {
      const value = labelValue(labels, expression.key);
      return value !== undefined && expression.values.includes(value);
    });
  });
}
