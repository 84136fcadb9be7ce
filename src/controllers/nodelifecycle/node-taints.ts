/**
 * Changing a node's taints the way the node controllers do (controller_utils.go
 * SwapNodeControllerTaint, AddOrUpdateTaintOnNode, RemoveTaintOffNode): taints to add get
 * `timeAdded` = now, a taint is identified by key and effect, and when the cached node already has
 * what is wanted no API call is made at all.
 */
import type { Client } from "../../api/client/client.ts";
import type { Node } from "../../api/objects.ts";
import { sameTaint, type Taint, taintExists } from "../../api/scheduling/taints.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";

/** The taints after adding the missing ones (stamped `nowMs`) and removing `remove`. */
function taintsAfterSwap(
  current: readonly Taint[],
  add: readonly Taint[],
  remove: readonly Taint[],
  nowMs: number,
): Taint[] {
  const kept = current.filter((taint) => !remove.some((unwanted) => sameTaint(taint, unwanted)));
  for (const taint of add) {
    if (!taintExists(kept, taint)) kept.push({ ...taint, timeAdded: formatRfc3339(nowMs) });
  }
  return kept;
}

function alreadyAsWanted(node: Node, add: readonly Taint[], remove: readonly Taint[]): boolean {
  const taints = node.spec?.taints ?? [];
  return add.every((taint) => taintExists(taints, taint)) && !remove.some((taint) => taintExists(taints, taint));
}

/**
 * Adds `add` and removes `remove` on the node `cached` names. Reads the node again before writing
 * and retries on Conflict (the kubelet writes nodes too); skips the API when `cached` needs nothing.
 */
export async function swapNodeTaints(
  client: Client,
  cached: Node,
  add: readonly Taint[],
  remove: readonly Taint[],
  nowMs: number,
): Promise<void> {
  if (alreadyAsWanted(cached, add, remove)) return;
  await client.nodes.mutate("", cached.metadata?.name ?? "", (draft) => {
    const taints = taintsAfterSwap(draft.spec?.taints ?? [], add, remove, nowMs);
    draft.spec = { ...draft.spec, taints };
    if (taints.length === 0) delete draft.spec.taints;
  });
}
