/**
 * TaintNodesByCondition (doNoScheduleTaintingPass): a node's conditions and `spec.unschedulable`
 * are mirrored as NoSchedule taints, which is how the scheduler learns that a node is not ready,
 * unreachable, under pressure or cordoned. Only taints with these keys and the NoSchedule effect
 * are the controller's; any other taint on the node is left alone.
 */
import type { Node } from "../../api/objects.ts";
import {
  sameTaint,
  type Taint,
  taintNodeDiskPressure,
  taintNodeMemoryPressure,
  taintNodeNetworkUnavailable,
  taintNodeNotReady,
  taintNodePidPressure,
  taintNodeUnreachable,
  taintNodeUnschedulable,
} from "../../api/scheduling/taints.ts";

/** nodeConditionToTaintKeyStatusMap: condition type → status → taint key. */
const taintKeyForCondition: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { False: taintNodeNotReady, Unknown: taintNodeUnreachable },
  MemoryPressure: { True: taintNodeMemoryPressure },
  DiskPressure: { True: taintNodeDiskPressure },
  NetworkUnavailable: { True: taintNodeNetworkUnavailable },
  PIDPressure: { True: taintNodePidPressure },
};

const conditionTaintKeys: ReadonlySet<string> = new Set([
  ...Object.values(taintKeyForCondition).flatMap((byStatus) => Object.values(byStatus)),
  taintNodeUnschedulable,
]);

/** The NoSchedule taints the node's conditions and cordon call for. */
function desiredConditionTaints(node: Node): Taint[] {
  const taints: Taint[] = [];
  for (const condition of node.status?.conditions ?? []) {
    const key = taintKeyForCondition[condition.type]?.[condition.status];
    if (key !== undefined) taints.push({ key, effect: "NoSchedule" });
  }
  if (node.spec?.unschedulable) taints.push({ key: taintNodeUnschedulable, effect: "NoSchedule" });
  return taints;
}

/** What to add and remove so the node's controller-owned NoSchedule taints are exactly the desired ones. */
export function conditionTaintChanges(node: Node): { add: Taint[]; remove: Taint[] } {
  const desired = desiredConditionTaints(node);
  const owned = (node.spec?.taints ?? []).filter(
    (taint) => taint.effect === "NoSchedule" && conditionTaintKeys.has(taint.key),
  );
  return {
    add: desired.filter((taint) => !owned.some((existing) => sameTaint(existing, taint))),
    remove: owned.filter((taint) => !desired.some((wanted) => sameTaint(wanted, taint))),
  };
}
