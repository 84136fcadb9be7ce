/**
 * What the scheduler knows about nodes beyond the informers (kube-scheduler's internal cache):
 * the nodes in a stable order for the filter pass (the informer's objects, kept beside their names
 * so the pass, hundreds of nodes per pod, reads an array instead of looking each node up), and how many pods each node runs — the bound
 * ones from the pod informer's index plus the ones assumed onto it whose binding is still in
 * flight, so two pods scheduled back to back spread out before either binding lands.
 */
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { Node, Pod } from "../../api/objects.ts";

/** Pods by node, without finished pods (kube-scheduler's pod informer excludes Succeeded and Failed). */
const activePodsByNodeIndex = "scheduler/active-pods-by-node";

const none: readonly string[] = [];

/**
 * Whether a pod update can change what the node caches count (`podsOnNode`). A pod keeps its uid,
 * node and volumes for life (the API refuses other spec changes), so only its binding, its
 * finishing, or another pod of the same name replacing it (seen at a relist) can; the many status
 * updates of a running pod cannot.
 */
export function mayChangeNodeCounts(oldPod: Pod, newPod: Pod): boolean {
  return oldPod.metadata?.uid !== newPod.metadata?.uid || activeNodeOf(oldPod) !== activeNodeOf(newPod);
}

/** The node whose bound pods include this one: none before its binding, nor once it finished. */
function activeNodeOf(pod: Pod): string | undefined {
  const nodeName = pod.spec?.nodeName;
  const phase = pod.status?.phase;
  if (!nodeName || phase === "Succeeded" || phase === "Failed") return undefined;
  return nodeName;
}

function activePodNode(pod: Pod): readonly string[] {
  const nodeName = activeNodeOf(pod);
  return nodeName === undefined ? none : [nodeName];
}

/** Nodes and their names at the same indexes. */
export interface NodesWithNames {
  readonly nodes: readonly Node[];
  /**
   * The filter pass reads hundreds per pod, and an array read is cheaper than each node's
   * `metadata.name` (the informer's objects come in many shapes).
   */
  readonly names: readonly string[];
}

export class SchedulerCache {
  private readonly pods: SharedInformer<Pod>;
  private readonly nodeNames: string[] = [];
  /** The informer's object of each name in `nodeNames`, at the same index. */
  private readonly nodes: Node[] = [];
  /** Both arrays, in one object: changed in place, so one object serves every read. */
  private readonly nodesWithNames: NodesWithNames = { nodes: this.nodes, names: this.nodeNames };
  /** Pod key → the pod (by uid) and the node it was assumed onto, until its binding lands or fails. */
  private readonly assumed = new Map<string, { uid: string; nodeName: string }>();
  private readonly assumedPerNode = new Map<string, number>();
  private readonly onNodeChanged: (nodeName: string) => void;

  /** `onNodeChanged` hears of every pod assumed onto a node or forgotten, for caches of what a node holds. */
  constructor(
    pods: SharedInformer<Pod>,
    onNodeChanged: (nodeName: string) => void = () => {
      // Nobody caches per node.
    },
  ) {
    this.pods = pods;
    this.onNodeChanged = onNodeChanged;
    if (!pods.indexer.hasIndex(activePodsByNodeIndex)) {
      pods.addIndexers({ [activePodsByNodeIndex]: activePodNode });
    }
  }

  /**
   * The nodes by ascending name (the order the filter pass walks them in) with their names at the
   * same indexes, from one read so the two cannot drift apart.
   */
  sortedNodesWithNames(): NodesWithNames {
    return this.nodesWithNames;
  }

  /** Adds the node, or replaces the object kept for it (call on every add and update from the informer). */
  setNode(node: Node): void {
    const name = node.metadata?.name ?? "";
    const index = this.insertionPoint(name);
    if (this.nodeNames[index] === name) {
      this.nodes[index] = node;
      return;
    }
    this.nodeNames.splice(index, 0, name);
    this.nodes.splice(index, 0, node);
  }

  removeNode(name: string): void {
    const index = this.insertionPoint(name);
    if (this.nodeNames[index] !== name) return;
    this.nodeNames.splice(index, 1);
    this.nodes.splice(index, 1);
  }

  /** The pods bound to the node (not finished) and those assumed onto it. */
  podsOnNode(nodeName: string): Pod[] {
    const pods = this.pods.indexer.byIndex(activePodsByNodeIndex, nodeName);
    if (!this.assumedPerNode.has(nodeName)) return pods;
    for (const [key, entry] of this.assumed) {
      if (entry.nodeName !== nodeName) continue;
      const slash = key.indexOf("/");
      const pod = this.pods.lister.get(key.slice(0, slash), key.slice(slash + 1));
      if (pod !== undefined && pod.metadata?.uid === entry.uid && !pod.spec?.nodeName) pods.push(pod);
    }
    return pods;
  }

  /** Pods running on or assumed onto the node. */
  podCount(nodeName: string): number {
    return this.pods.indexer.countByIndex(activePodsByNodeIndex, nodeName) + (this.assumedPerNode.get(nodeName) ?? 0);
  }

  assume(podKey: string, uid: string, nodeName: string): void {
    this.forget(podKey);
    this.assumed.set(podKey, { uid, nodeName });
    this.assumedPerNode.set(nodeName, (this.assumedPerNode.get(nodeName) ?? 0) + 1);
    this.onNodeChanged(nodeName);
  }

  isAssumed(podKey: string): boolean {
    return this.assumed.has(podKey);
  }

  /** The node the pod is assumed onto, if it is. */
  assumedNode(podKey: string): string | undefined {
    return this.assumed.get(podKey)?.nodeName;
  }

  /**
   * The pod's binding landed (the index counts it now), failed, or the pod is gone. With `uid`, only
   * that pod's assumption is dropped, not one made since for a new pod of the same name.
   */
  forget(podKey: string, uid?: string): void {
    const entry = this.assumed.get(podKey);
    if (entry === undefined || (uid !== undefined && entry.uid !== uid)) return;
    const nodeName = entry.nodeName;
    this.assumed.delete(podKey);
    const remaining = (this.assumedPerNode.get(nodeName) ?? 1) - 1;
    if (remaining > 0) this.assumedPerNode.set(nodeName, remaining);
    else this.assumedPerNode.delete(nodeName);
    this.onNodeChanged(nodeName);
  }

  /** Binary search: the index of `name`, or where it would go. */
  private insertionPoint(name: string): number {
    let low = 0;
    let high = this.nodeNames.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.nodeNames[middle] as string) < name) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
