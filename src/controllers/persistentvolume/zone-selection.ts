/**
 * The zone a new disk is created in (cloud-provider volume helpers SelectZoneForVolume and
 * ChooseZoneForVolume): the selected node's zone when the scheduler chose a node; otherwise one of
 * the class's allowed zones, picked by a hash of the claim name so a StatefulSet's claims spread
 * across zones (`data-web-0`, `data-web-1`, … land in consecutive zones).
 */
import type { Node, TopologySelectorTerm } from "kubernetes-types/core/v1.js";
import { zoneLabel } from "./annotations.ts";

interface ZoneRequest {
  claimName: string;
  selectedNode?: Node;
  allowedTopologies?: readonly TopologySelectorTerm[];
}

/** The zone for the disk, or undefined when nothing asks for one (the disk is then usable anywhere). */
export function chooseZone(request: ZoneRequest): string | undefined {
  if (request.selectedNode !== undefined) return request.selectedNode.metadata?.labels?.[zoneLabel];
  const terms = request.allowedTopologies ?? [];
  const allowed = allowedZones(terms);
  if (terms.length > 0 && allowed.length === 0) {
    throw new Error(
      `no matchLabelExpressions with ${zoneLabel} key found in allowedTopologies. ` +
        `Please specify matchLabelExpressions with ${zoneLabel} key`,
    );
  }
  return allowed.length === 0 ? undefined : chooseZoneForClaim(allowed, request.claimName);
}

/** Every zone the class's allowedTopologies name, sorted. */
function allowedZones(terms: readonly TopologySelectorTerm[]): string[] {
  const zones = new Set<string>();
  for (const term of terms) {
    for (const expression of term.matchLabelExpressions ?? []) {
      if (expression.key === zoneLabel) for (const value of expression.values) zones.add(value);
    }
  }
  return [...zones].sort();
}

/** ChooseZonesForVolume with one replica: `zones` sorted, the claim name hashed with FNV-1 (32 bit). */
export function chooseZoneForClaim(zones: readonly string[], claimName: string): string {
  const { hashed, index } = statefulSetAwareName(claimName);
  const position = ((fnv1Hash32(hashed) + index) >>> 0) % zones.length;
  return zones[position] as string;
}

/**
 * `<claim>-<set>-<ordinal>` hashes only `<set>` and offsets by the ordinal, so the claims of one
 * StatefulSet member share a zone and consecutive members take consecutive zones.
 */
function statefulSetAwareName(claimName: string): { hashed: string; index: number } {
  const lastDash = claimName.lastIndexOf("-");
  const ordinalText = claimName.slice(lastDash + 1);
  if (lastDash < 0 || !/^[0-9]+$/.test(ordinalText) || Number(ordinalText) > 0xffff_ffff) {
    return { hashed: claimName, index: 0 };
  }
  const prefix = claimName.slice(0, lastDash);
  return { hashed: prefix.slice(prefix.lastIndexOf("-") + 1), index: Number(ordinalText) };
}

const fnv32OffsetBasis = 0x811c9dc5;
const fnv32Prime = 0x01000193;

/** Go's hash/fnv New32 (FNV-1: multiply, then xor) over the UTF-8 bytes of `text`. */
export function fnv1Hash32(text: string): number {
  let hash = fnv32OffsetBasis;
  for (const byte of new TextEncoder().encode(text)) {
    hash = Math.imul(hash, fnv32Prime) >>> 0;
    hash = (hash ^ byte) >>> 0;
  }
  return hash;
}
