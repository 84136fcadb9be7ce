/**
 * The message of a pod that fits nowhere (the framework's FitError.Error), which users read in the
 * FailedScheduling event and the PodScheduled condition:
 *
 *   `0/3 nodes are available: 1 node(s) had volume node affinity conflict, 2 node(s) were unschedulable.`
 *
 * Each node contributes every reason its first failing filter gave; the reasons are counted and the
 * `"<count> <reason>"` strings sorted as plain strings (Go's sort.Strings, so "10 …" sorts before
 * "2 …"), exactly as kube-scheduler does. When PreFilter already rejected the pod, only its message
 * is shown. The `preemption: …` suffix is not produced: kvol does not model preemption.
 */

interface Diagnosis {
  /** Set when PreFilter rejected the pod for every node (e.g. a missing claim). */
  preFilterMessage?: string;
  /** Each rejected node's reasons, in the order its filter gave them. */
  nodeReasons: ReadonlyMap<string, readonly string[]>;
}

function compareAsGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

export function fitErrorMessage(numAllNodes: number, diagnosis: Diagnosis): string {
  let message = `0/${numAllNodes} nodes are available:`;
  if (diagnosis.preFilterMessage !== undefined && diagnosis.preFilterMessage !== "") {
    return `${message} ${diagnosis.preFilterMessage}.`;
  }
  const counts = new Map<string, number>();
  for (const reasons of diagnosis.nodeReasons.values()) {
    for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  const histogram = [...counts].map(([reason, count]) => `${count} ${reason}`).sort(compareAsGoStrings);
  if (histogram.length > 0) message += ` ${histogram.join(", ")}.`;
  return message;
}
