/**
 * A LabelSelector as kubectl's SELECTOR column prints it (metav1.FormatLabelSelector):
 * requirements sorted by key, `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`; `<none>` when empty.
 */
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import { noneText } from "./table-types.ts";

interface Requirement {
  key: string;
  text: string;
}

function expressionText(key: string, operator: string, values: readonly string[]): string {
  const sorted = [...values].sort().join(",");
  switch (operator) {
    case "In":
      return values.length === 1 ? `${key}=${sorted}` : `${key} in (${sorted})`;
    case "NotIn":
      return values.length === 1 ? `${key}!=${sorted}` : `${key} notin (${sorted})`;
    case "Exists":
      return key;
    case "DoesNotExist":
      return `!${key}`;
    default:
      return `${key} ${operator} (${sorted})`;
  }
}

export function labelSelectorText(selector: LabelSelector | undefined): string {
  if (selector === undefined) return noneText;
  const requirements: Requirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({
    key,
    text: `${key}=${value}`,
  }));
  for (const expression of selector.matchExpressions ?? []) {
    requirements.push({
      key: expression.key,
      text: expressionText(expression.key, expression.operator, expression.values ?? []),
    });
  }
  if (requirements.length === 0) return noneText;
  return requirements
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => r.text)
    .join(",");
}
