/**
 * A topology term: one CSI `Topology` (segment key → value) kept as key-sorted pairs, so terms
 * compare, sort and deduplicate the way external-provisioner's `topologyTerm` does.
 */
import type { TopologySelectorTerm } from "kubernetes-types/core/v1.js";
import type { Topology } from "../../csi/proto/types.ts";

type TopologySegment = readonly [key: string, value: string];
export type TopologyTerm = readonly TopologySegment[];

function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function sortedBySegmentKey(segments: TopologySegment[]): TopologyTerm {
  return segments.sort((a, b) => compareText(a[0], b[0]) || compareText(a[1], b[1]));
}

export function termFromSegments(segments: Readonly<Record<string, string>>): TopologyTerm {
  return sortedBySegmentKey(Object.entries(segments));
}

/** Segment by segment (key, then value); a term that is a prefix of another sorts first. */
function compareTerms(a: TopologyTerm, b: TopologyTerm): number {
  const shared = Math.min(a.length, b.length);
  for (let index = 0; index < shared; index++) {
    const [keyA, valueA] = a[index] as TopologySegment;
    const [keyB, valueB] = b[index] as TopologySegment;
    const order = compareText(keyA, keyB) || compareText(valueA, valueB);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

export function termsEqual(a: TopologyTerm, b: TopologyTerm): boolean {
  return compareTerms(a, b) === 0;
}

/** The terms without repeats, in first-seen order. */
export function deduplicateTerms(terms: readonly TopologyTerm[]): TopologyTerm[] {
  const unique: TopologyTerm[] = [];
  for (const term of terms) if (!unique.some((seen) => termsEqual(seen, term))) unique.push(term);
  return unique;
}

export function sortTerms(terms: readonly TopologyTerm[]): TopologyTerm[] {
  return [...terms].sort(compareTerms);
}

/**
 * allowedTopologies as a list of terms: the selector terms are ORed, the expressions inside one
 * are ANDed, and the values of one expression ORed, so `zone in (a, b)` AND `rack in (1)` gives
 * `{zone: a, rack: 1}` and `{zone: b, rack: 1}`.
 */
export function flattenAllowedTopologies(allowed: readonly TopologySelectorTerm[]): TopologyTerm[] {
  const flattened: TopologyTerm[] = [];
  for (const selectorTerm of allowed) {
    let partial: TopologySegment[][] = [];
    for (const expression of selectorTerm.matchLabelExpressions ?? []) {
      const next: TopologySegment[][] = [];
      for (const value of expression.values) {
        const segment: TopologySegment = [expression.key, value];
        if (partial.length === 0) next.push([segment]);
        else for (const term of partial) next.push([...term, segment]);
      }
      partial = next;
    }
    for (const term of partial) flattened.push(sortedBySegmentKey(term));
  }
  return flattened;
}

export function toCsiTopology(term: TopologyTerm): Topology {
  return { segments: Object.fromEntries(term) };
}

/** Go's `%v` of a topologyTerm (`[{zone a} {rack 1}]`), for error messages. */
export function formatTerm(term: TopologyTerm): string {
  return `[${term.map(([key, value]) => `{${key} ${value}}`).join(" ")}]`;
}

const fnv32OffsetBasis = 0x811c9dc5;
const fnv32Prime = 0x01000193;

/** FNV-1 (not 1a), 32 bits, of the UTF-8 bytes: Go's `hash/fnv.New32`. */
export function fnv32(text: string): number {
  let hash = fnv32OffsetBasis;
  for (const byte of Buffer.from(text, "utf8")) {
    hash = Math.imul(hash, fnv32Prime) >>> 0;
    hash = (hash ^ byte) >>> 0;
  }
  return hash;
}
