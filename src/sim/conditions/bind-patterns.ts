/**
 * A name pattern (`pod web-*`) names one object per condition: every use of the same pattern talks
 * of the same object, so `pod web-* phase is Running and pod web-* node is node-b` needs one pod that
 * is both. The pattern is bound at the smallest part of the condition that holds all its uses, and
 * that part holds when some matching object makes it hold. So `not pod web-* status is Terminating`
 * still reads "no web-* pod is Terminating", while `pod web-* phase is Running and not mount of pod
 * web-* volume data on node-a is healthy` reads "a Running web-* pod whose mount is not healthy".
 */
import type { Condition } from "./ast.ts";
import type { ObjectRef } from "./object-ref.ts";

/** One key per distinct pattern: the same kind, namespace and name pattern. */
export function patternKey(ref: ObjectRef): string {
  return `${ref.kind}|${ref.namespace}|${ref.name ?? ""}`;
}

/** A ref whose name holds `*`; a kind alone (a whole kind's total) is not bound. */
export function isBindablePattern(ref: ObjectRef): boolean {
  return ref.name?.includes("*") === true;
}

/** The refs a check names directly. */
function refsOf(condition: Condition): ObjectRef[] {
  switch (condition.type) {
    case "and":
    case "or":
    case "not":
    case "bind":
      return [];
    case "property":
    case "existence":
    case "write-count":
      return [condition.object];
    case "attachment-count":
      return [condition.volume];
    case "mount":
      return [condition.pod];
    case "node-volumes-count":
      return [condition.node];
    case "node-volumes-contain":
      return condition.volume.kind === "object" ? [condition.node, condition.volume.object] : [condition.node];
  }
}

function childrenOf(condition: Condition): readonly Condition[] {
  switch (condition.type) {
    case "and":
    case "or":
      return condition.operands;
    case "not":
      return [condition.operand];
    case "bind":
      return [condition.body];
    default:
      return [];
  }
}

function withChildren(condition: Condition, children: readonly Condition[]): Condition {
  switch (condition.type) {
    case "and":
    case "or":
      return { type: condition.type, operands: children };
    case "not":
      return { type: "not", operand: children[0] ?? condition.operand };
    default:
      return condition;
  }
}

type Counts = Map<string, { ref: ObjectRef; uses: number }>;

function countUses(condition: Condition, counts: Counts = new Map()): Counts {
  for (const ref of refsOf(condition)) {
    if (!isBindablePattern(ref)) continue;
    const key = patternKey(ref);
    const entry = counts.get(key) ?? { ref, uses: 0 };
    entry.uses++;
    counts.set(key, entry);
  }
  for (const child of childrenOf(condition)) countUses(child, counts);
  return counts;
}

/** Wraps each pattern's smallest enclosing part in a `bind`. */
export function bindPatterns(condition: Condition): Condition {
  const totals = countUses(condition);
  if (totals.size === 0) return condition;
  return bindWithin(condition, totals).condition;
}

function bindWithin(condition: Condition, totals: Counts): { condition: Condition; counts: Counts } {
  const children = childrenOf(condition).map((child) => bindWithin(child, totals));
  const counts: Counts = new Map();
  for (const ref of refsOf(condition)) if (isBindablePattern(ref)) addUse(counts, ref, 1);
  for (const child of children) for (const { ref, uses } of child.counts.values()) addUse(counts, ref, uses);
  let bound = withChildren(
    condition,
    children.map((child) => child.condition),
  );
  for (const [key, { ref, uses }] of counts) {
    const total = totals.get(key)?.uses ?? 0;
    // Bound here when this part holds every use and no single child does (a child would bind it).
    const heldByOneChild = children.some((child) => child.counts.get(key)?.uses === total);
    if (uses === total && !heldByOneChild) bound = { type: "bind", pattern: ref, body: bound };
  }
  return { condition: bound, counts };
}

function addUse(counts: Counts, ref: ObjectRef, uses: number): void {
  const key = patternKey(ref);
  const entry = counts.get(key) ?? { ref, uses: 0 };
  entry.uses += uses;
  counts.set(key, entry);
}
