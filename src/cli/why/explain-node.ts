/**
 * Node links: whether the node is Ready and since when, and what a node that is down means for the
 * volumes attached to it (the out-of-service taint, force detach).
 */
import type { NodeCondition } from "kubernetes-types/core/v1.js";
import type { Node } from "../../api/objects.ts";
import { type Chain, timeMs } from "./chain.ts";

export const outOfServiceTaintKey = "node.kubernetes.io/out-of-service";

export function readyCondition(node: Node | undefined): NodeCondition | undefined {
  return node?.status?.conditions?.find((condition) => condition.type === "Ready");
}

export function isReady(node: Node | undefined): boolean {
  return readyCondition(node)?.status === "True";
}

export function hasOutOfServiceTaint(node: Node | undefined): boolean {
  return node?.spec?.taints?.some((taint) => taint.key === outOfServiceTaintKey) ?? false;
}

/** `kubectl taint nodes NODE node.kubernetes.io/out-of-service=nodeshutdown:NoExecute`. */
export function outOfServiceCommand(nodeName: string): string {
  return `kubectl taint nodes ${nodeName} ${outOfServiceTaintKey}=nodeshutdown:NoExecute`;
}

/** Adds the node's link: Ready, or NotReady with its reason and since when. */
export function addNodeLink(chain: Chain, nodeName: string, node: Node | undefined): void {
  if (node === undefined) {
    chain.add(`node ${nodeName}`, "does not exist (deleted)");
    return;
  }
  const ready = readyCondition(node);
  const since = timeMs(ready?.lastTransitionTime);
  const taint = hasOutOfServiceTaint(node) ? `, tainted ${outOfServiceTaintKey}` : "";
  if (ready?.status === "True") {
    chain.add(`node ${nodeName}`, `Ready${taint}`, since);
    return;
  }
  const status = ready === undefined ? "no Ready condition" : `Ready=${ready.status}`;
  const evidence = ready?.message === undefined ? [] : [`condition Ready ${ready.reason ?? ""}: ${ready.message}`];
  chain.add(`node ${nodeName}`, `NotReady (${status})${taint}`, since, evidence);
}
