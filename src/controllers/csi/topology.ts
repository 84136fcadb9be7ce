/**
 * Where a new volume must be reachable (external-provisioner GenerateAccessibilityRequirements),
 * sent to drivers with VOLUME_ACCESSIBILITY_CONSTRAINTS as CreateVolume's
 * `accessibility_requirements`:
 *
 * - WaitForFirstConsumer: the selected node's topology, read from its labels under the topology
 *   keys its CSINode lists for the driver. It comes first in `preferred`; `requisite` is the
 *   class's allowedTopologies, or else every topology the cluster's nodes have under those keys
 *   (only the node's own with strict topology).
 * - Immediate: allowedTopologies, or every topology in the cluster; `preferred` is the sorted list
 *   rotated by a hash of the claim name, so a StatefulSet's claims spread over the topologies.
 */
import type { TopologySelectorTerm } from "kubernetes-types/core/v1.js";
import type { Lister } from "../../api/informer/lister.ts";
import type { CSINode, Node } from "../../api/objects.ts";
import type { TopologyRequirement } from "../../csi/proto/types.ts";
import { goQuote } from "../../runtime/go-quote.ts";
import {
  deduplicateTerms,
  flattenAllowedTopologies,
  fnv32,
  formatTerm,
  sortTerms,
  type TopologyTerm,
  termFromSegments,
  termsEqual,
  toCsiTopology,
} from "./topology-term.ts";

export interface AccessibilityRequest {
  driverName: string;
  /** The claim's name: its hash spreads Immediate claims over the topologies. */
  claimName: string;
  allowedTopologies: readonly TopologySelectorTerm[];
  selectedNode: Node | undefined;
  /** `--strict-topology`: only the selected node's topology is requisite. */
  strictTopology: boolean;
  /** `--immediate-topology`: Immediate claims without allowedTopologies still get the cluster's topologies. */
  immediateTopology: boolean;
  csiNodes: Lister<CSINode>;
  nodes: Lister<Node>;
}

/** The requirement, or null when there is nothing to require. Throws when the selected node cannot be placed. */
export function accessibilityRequirements(request: AccessibilityRequest): TopologyRequirement | null {
  const selected = request.selectedNode === undefined ? undefined : selectedNodeTopology(request, request.selectedNode);
  if (selected !== undefined && request.strictTopology) checkStrictlyAllowed(request, selected);
  const requisite = requisiteTerms(request, selected);
  if (requisite.length === 0) return null;
  const preferred = preferredTerms(request, requisite, selected);
  return { requisite: requisite.map(toCsiTopology), preferred: preferred.map(toCsiTopology) };
}

interface SelectedTopology {
  nodeName: string;
  keys: readonly string[];
  term: TopologyTerm;
}

function selectedNodeTopology(request: AccessibilityRequest, node: Node): SelectedTopology {
  const nodeName = node.metadata?.name ?? "";
  const csiNode = request.csiNodes.get("", nodeName);
  if (csiNode === undefined) {
    throw new Error(
      `error getting CSINode for selected node ${goQuote(nodeName)}: csinode.storage.k8s.io ${goQuote(nodeName)} not found`,
    );
  }
  const keys = topologyKeysOf(csiNode, request.driverName);
  // The driver is not (yet) registered there: failing lets the scheduler pick a node again.
  if (keys.length === 0) throw new Error(`no topology key found on CSINode ${nodeName}`);
  const term = termOfNode(node, keys);
  if (term === undefined) {
    throw new Error(
      `topology labels from selected node ${formatGoMap(node.metadata?.labels ?? {})} ` +
        `does not match topology keys from CSINode [${keys.join(" ")}]`,
    );
  }
  return { nodeName, keys, term };
}

function checkStrictlyAllowed(request: AccessibilityRequest, selected: SelectedTopology): void {
  if (request.allowedTopologies.length === 0) return;
  const allowed = flattenAllowedTopologies(request.allowedTopologies);
  const fits = allowed.some((term) =>
    term.every(([key, value]) => selected.term.some(([k, v]) => k === key && v === value)),
  );
  if (fits) return;
  throw new Error(
    `selected node '${goQuote(selected.nodeName)}' topology '${formatTerm(selected.term)}' ` +
      `is not in allowed topologies: [${allowed.map(formatTerm).join(" ")}]`,
  );
}

function requisiteTerms(request: AccessibilityRequest, selected: SelectedTopology | undefined): TopologyTerm[] {
  if (selected !== undefined && request.strictTopology) return [selected.term];
  if (request.allowedTopologies.length > 0) {
    return sortTerms(deduplicateTerms(flattenAllowedTopologies(request.allowedTopologies)));
  }
  // Neither the class nor the claim limits placement, and the driver does not want to be told.
  if (selected === undefined && !request.immediateTopology) return [];
  return sortTerms(deduplicateTerms(aggregateTopologies(request, selected)));
}

/** Every topology the cluster's nodes have under the driver's topology keys. */
function aggregateTopologies(request: AccessibilityRequest, selected: SelectedTopology | undefined): TopologyTerm[] {
  const keys = selected?.keys ?? firstReportedTopologyKeys(request);
  // A driver that reports no topology keys anywhere asks for no requirement.
  if (keys.length === 0) return [];
  const terms: TopologyTerm[] = [];
  for (const node of request.nodes.list()) {
    const term = termOfNode(node, keys);
    if (term !== undefined) terms.push(term);
  }
  if (terms.length === 0) throw new Error(`topologyKeys [${keys.join(" ")}] were not found on any nodes`);
  return terms;
}

/** Topology is homogeneous per driver: the first CSINode that lists keys for it speaks for all. */
function firstReportedTopologyKeys(request: AccessibilityRequest): readonly string[] {
  for (const csiNode of request.csiNodes.list()) {
    const keys = topologyKeysOf(csiNode, request.driverName);
    if (keys.length > 0) return keys;
  }
  return [];
}

function preferredTerms(
  request: AccessibilityRequest,
  requisite: readonly TopologyTerm[],
  selected: SelectedTopology | undefined,
): TopologyTerm[] {
  if (selected === undefined) return rotate(requisite, spreadOffset(request.claimName) % requisite.length);
  if (request.strictTopology) return [...requisite];
  const at = requisite.findIndex((term) => termsEqual(term, selected.term));
  if (at < 0) {
    throw new Error(
      `topology ${formatTerm(selected.term)} from selected node ${goQuote(selected.nodeName)} ` +
        `is not in requisite: [${requisite.map(formatTerm).join(" ")}]`,
    );
  }
  return rotate(requisite, at);
}

/** `terms` (sorted) starting at `start` and wrapping around: the order stays, the first term changes. */
function rotate(terms: readonly TopologyTerm[], start: number): TopologyTerm[] {
  return [...terms.slice(start), ...terms.slice(0, start)];
}

/**
 * getPVCNameHashAndIndexOffset: a StatefulSet claim `data-web-3` hashes `data-web` and adds 3, so
 * consecutive replicas land on consecutive topologies.
 */
export function spreadOffset(claimName: string): number {
  const lastDash = claimName.lastIndexOf("-");
  const suffix = lastDash < 0 ? "" : claimName.slice(lastDash + 1);
  const isReplicaIndex = /^\d+$/.test(suffix) && Number(suffix) <= 0xffff_ffff;
  if (!isReplicaIndex) return fnv32(claimName);
  return (fnv32(claimName.slice(0, lastDash)) + Number(suffix)) >>> 0;
}

function topologyKeysOf(csiNode: CSINode, driverName: string): readonly string[] {
  return csiNode.spec.drivers.find((driver) => driver.name === driverName)?.topologyKeys ?? [];
}

/** The node's values under `keys`, or undefined when it lacks any of them. */
function termOfNode(node: Node, keys: readonly string[]): TopologyTerm | undefined {
  const labels = node.metadata?.labels ?? {};
  const segments: Record<string, string> = {};
  for (const key of keys) {
    const value = Object.hasOwn(labels, key) ? labels[key] : undefined;
    if (value === undefined) return undefined;
    segments[key] = value;
  }
  return termFromSegments(segments);
}

/** Go's `%v` of a map: `map[k1:v1 k2:v2]`, keys sorted. */
function formatGoMap(map: Readonly<Record<string, string>>): string {
  const entries = Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[${entries.map(([key, value]) => `${key}:${value}`).join(" ")}]`;
}
