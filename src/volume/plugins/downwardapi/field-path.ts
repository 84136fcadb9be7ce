/**
 * The pod fields a downward API volume can expose (Kubernetes' fieldpath.ExtractFieldPathAsString):
 * name, namespace, uid, and labels / annotations — all of them, or one by key.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { goQuote } from "../../../runtime/go-quote.ts";

/** `key="value"` lines in key order, as Kubernetes' fieldpath.FormatMap writes labels and annotations. */
function formatMap(map: Readonly<Record<string, string>> | undefined): string {
  const keys = Object.keys(map ?? {}).sort();
  return keys.map((key) => `${key}=${goQuote((map as Record<string, string>)[key] as string)}`).join("\n");
}

/** `metadata.labels['app']` → path and subscript; undefined when the path has no subscript. */
function splitSubscript(fieldPath: string): { path: string; subscript: string } | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const inner = fieldPath.slice(0, -2);
  const open = inner.indexOf("['");
  if (open <= 0) return undefined;
  return { path: inner.slice(0, open), subscript: inner.slice(open + 2) };
}

export function extractFieldPathAsString(pod: Pod, fieldPath: string): string {
  const meta = pod.metadata ?? {};
  const subscripted = splitSubscript(fieldPath);
  if (subscripted !== undefined) {
    if (subscripted.path === "metadata.annotations") return meta.annotations?.[subscripted.subscript] ?? "";
    if (subscripted.path === "metadata.labels") return meta.labels?.[subscripted.subscript] ?? "";
    throw new Error(`fieldPath ${goQuote(fieldPath)} does not support subscript`);
  }
  switch (fieldPath) {
    case "metadata.annotations":
      return formatMap(meta.annotations);
    case "metadata.labels":
      return formatMap(meta.labels);
    case "metadata.name":
      return meta.name ?? "";
    case "metadata.namespace":
      return meta.namespace ?? "";
    case "metadata.uid":
      return meta.uid ?? "";
    default:
      throw new Error(`unsupported fieldPath: ${fieldPath}`);
  }
}
