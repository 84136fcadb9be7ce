/**
 * Whether a PV may be used on a node (Kubernetes' volumeutil.CheckNodeAffinity): the PV's required
 * node affinity must match the node's labels (and name). The kubelet checks it before mounting a
 * local volume, failing with `MountVolume.NodeAffinity check failed for volume ...`. The matching
 * itself is the scheduler's (api/scheduling/node-selector.ts), so kubelet and scheduler agree on
 * every node.
 */
import type { Node, PersistentVolume } from "kubernetes-types/core/v1.js";
import { matchesNodeSelectorTerms } from "../../api/scheduling/node-selector.ts";

/** Throws `no matching NodeSelectorTerms` when the PV's required affinity excludes `node`. */
export function checkNodeAffinity(pv: PersistentVolume, node: Node): void {
  const required = pv.spec?.nodeAffinity?.required;
  if (required === undefined) return;
  if (!matchesNodeSelectorTerms(node, required.nodeSelectorTerms)) {
    throw new Error("no matching NodeSelectorTerms");
  }
}
