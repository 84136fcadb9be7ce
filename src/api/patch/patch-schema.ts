/**
 * What the patch algorithms need to know about a field: the per-field merge metadata of
 * Kubernetes' OpenAPI (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`,
 * `x-kubernetes-list-type`, `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`) on a tree of
 * nodes. The API schema (src/api/schema/schema.ts) produces such trees; tests build small ones by
 * hand. A field without a node is treated as schemaless: maps merge key by key, lists are atomic.
 */

export interface PatchSchemaNode {
  /** The fields of an object (a struct). */
  readonly properties?: Readonly<Record<string, PatchSchemaNode>>;
  /** The value schema of a map with arbitrary keys (labels, annotations, resource lists). */
  readonly additionalProperties?: PatchSchemaNode | boolean;
  /** The element schema of a list. */
  readonly items?: PatchSchemaNode;
  /** `merge`, `replace`, `retainKeys` or a comma-separated combination (`merge,retainKeys`). */
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
  readonly listType?: "atomic" | "set" | "map";
  readonly listMapKeys?: readonly string[];
  readonly mapType?: "atomic" | "granular";
  /** Set on objects that are replaced whole (`x-kubernetes-map-type: atomic` on a struct, as LabelSelector). */
  readonly structType?: "atomic" | "granular";
  /** The default of a scalar; a list-map key left out of an applied element takes it (a port's protocol). */
  readonly default?: unknown;
}

/** How a list is merged: replaced whole, a set of scalars, or a map of elements by key fields. */
export type ListSemantics = { kind: "atomic" } | { kind: "set" } | { kind: "map"; keys: readonly string[] };

export function childSchema(node: PatchSchemaNode | undefined, field: string): PatchSchemaNode | undefined {
  if (node === undefined) return undefined;
  const property = node.properties?.[field];
  if (property !== undefined) return property;
  return typeof node.additionalProperties === "object" ? node.additionalProperties : undefined;
}

export function itemSchema(node: PatchSchemaNode | undefined): PatchSchemaNode | undefined {
  return node?.items;
}

function strategies(node: PatchSchemaNode | undefined): string[] {
  return (node?.patchStrategy ?? "").split(",").map((part) => part.trim());
}

/** The strategic merge patch strategy of a field: `merge`, `replace` or "" (the default: replace lists, merge maps). */
export function patchStrategyOf(node: PatchSchemaNode | undefined): "merge" | "replace" | "" {
  const parts = strategies(node);
  if (parts.includes("replace")) return "replace";
  if (parts.includes("merge")) return "merge";
  return "";
}

export function patchMergeKeyOf(node: PatchSchemaNode | undefined): string {
  return node?.patchMergeKey ?? "";
}

/**
 * The list semantics server-side apply uses. Explicit `listType` wins; otherwise a list with
 * patch strategy `merge` is a map by its merge key (or a set of scalars without one), as the
 * structured-merge-diff schema conversion reads the Go tags; anything else is atomic.
 */
export function listSemanticsOf(node: PatchSchemaNode | undefined): ListSemantics {
  if (node?.listType === "atomic") return { kind: "atomic" };
  if (node?.listType === "set") return { kind: "set" };
  if (node?.listType === "map") {
    const keys = node.listMapKeys ?? (node.patchMergeKey ? [node.patchMergeKey] : []);
    return keys.length > 0 ? { kind: "map", keys } : { kind: "atomic" };
  }
  if (patchStrategyOf(node) !== "merge") return { kind: "atomic" };
  const mergeKey = patchMergeKeyOf(node);
  return mergeKey === "" ? { kind: "set" } : { kind: "map", keys: [mergeKey] };
}

/** True for maps and structs that are replaced whole rather than merged field by field. */
export function isAtomicObject(node: PatchSchemaNode | undefined): boolean {
  return node?.mapType === "atomic" || node?.structType === "atomic";
}
