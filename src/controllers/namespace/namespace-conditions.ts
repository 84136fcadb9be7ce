/**
 * The conditions the namespace controller reports on a namespace being deleted, with
 * Kubernetes' types, reasons and messages: discovery and parsing (always fine here: kvol serves a
 * fixed set of kinds), content deletion, and what remains with the finalizers holding it.
 */
import type { NamespaceCondition } from "kubernetes-types/core/v1.js";
import type { ContentLeft } from "./content-deleter.ts";

function listed(counts: Map<string, number>, what: string): string {
  const names = [...counts.keys()].sort();
  return names.map((name) => `${name} ${what} ${counts.get(name)} resource instances`).join(", ");
}

export function namespaceConditions(left: ContentLeft, nowText: string): NamespaceCondition[] {
  const condition = (type: string, status: "True" | "False", reason: string, message: string): NamespaceCondition => ({
    type,
    status,
    lastTransitionTime: nowText,
    reason,
    message,
  });
  const remains = left.remaining.size > 0;
  const held = left.finalizers.size > 0;
  return [
    condition(
      "NamespaceDeletionDiscoveryFailure",
      "False",
      "ResourcesDiscovered",
      "All resources successfully discovered",
    ),
    condition(
      "NamespaceDeletionGroupVersionParsingFailure",
      "False",
      "ParsedGroupVersions",
      "All legacy kube types successfully parsed",
    ),
    condition(
      "NamespaceDeletionContentFailure",
      "False",
      "ContentDeleted",
      "All content successfully deleted, may be waiting on finalization",
    ),
    remains
      ? condition(
          "NamespaceContentRemaining",
          "True",
          "SomeResourcesRemain",
          `Some resources are remaining: ${listed(left.remaining, "has")}`,
        )
      : condition("NamespaceContentRemaining", "False", "ContentRemoved", "All content successfully removed"),
    held
      ? condition(
          "NamespaceFinalizersRemaining",
          "True",
          "SomeFinalizersRemain",
          `Some content in the namespace has finalizers remaining: ${listed(left.finalizers, "in")}`,
        )
      : condition(
          "NamespaceFinalizersRemaining",
          "False",
          "ContentHasNoFinalizers",
          "All content-preserving finalizers finished",
        ),
  ];
}

/** The conditions to store: an unchanged condition keeps its lastTransitionTime. */
export function mergeConditions(
  existing: readonly NamespaceCondition[],
  next: readonly NamespaceCondition[],
): NamespaceCondition[] {
  return next.map((condition) => {
    const before = existing.find((old) => old.type === condition.type);
    const same =
      before !== undefined &&
      before.status === condition.status &&
      before.reason === condition.reason &&
      before.message === condition.message;
    return same ? before : condition;
  });
}
