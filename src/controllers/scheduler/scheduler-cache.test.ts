import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Indexer } from "../../api/informer/indexer.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { Node, Pod } from "../../api/objects.ts";
import { mayChangeNodeCounts, SchedulerCache } from "./scheduler-cache.ts";

/** The part of a pod informer the cache uses: its indexer. */
function podInformer(): SharedInformer<Pod> {
  const indexer = new Indexer<Pod>();
  const informer = {
    indexer,
    addIndexers: (indexers: Record<string, (pod: Pod) => readonly string[]>) => {
      for (const [name, indexFunc] of Object.entries(indexers)) indexer.ensureIndex(name, indexFunc);
    },
  };
  return informer as unknown as SharedInformer<Pod>;
}

function node(name: string, unschedulable = false): Node {
  return Object.freeze({ metadata: { name }, spec: { unschedulable } });
}

describe("SchedulerCache's nodes", () => {
  it("walks the nodes by name whatever order they arrive in, each as its latest version", () => {
    const cache = new SchedulerCache(podInformer());
    for (const name of ["node-b", "node-c", "node-a"]) cache.setNode(node(name));
    const cordoned = node("node-b", true);
    cache.setNode(cordoned);
    const { nodes, names } = cache.sortedNodesWithNames();
    assert.deepEqual(names, ["node-a", "node-b", "node-c"]);
    assert.deepEqual(
      nodes.map((n) => n.metadata?.name),
      ["node-a", "node-b", "node-c"],
    );
    assert.equal(nodes[1], cordoned, "the update replaces the node, it does not add one");
  });

  it("forgets a removed node, and ignores the removal of one it never had", () => {
    const cache = new SchedulerCache(podInformer());
    for (const name of ["node-a", "node-b"]) cache.setNode(node(name));
    cache.removeNode("node-a");
    cache.removeNode("node-z");
    const { nodes, names } = cache.sortedNodesWithNames();
    assert.deepEqual(names, ["node-b"]);
    assert.deepEqual(
      nodes.map((n) => n.metadata?.name),
      ["node-b"],
    );
  });

  it("recounts a node for a pod's binding, finishing or replacement, not for its status updates", () => {
    const pending: Pod = { metadata: { name: "p", namespace: "ns", uid: "uid-1" }, spec: { containers: [] } };
    const bound: Pod = { ...pending, spec: { containers: [], nodeName: "node-1" }, status: { phase: "Pending" } };
    const running: Pod = { ...bound, status: { phase: "Running" } };
    assert.equal(mayChangeNodeCounts(pending, bound), true, "bound");
    assert.equal(mayChangeNodeCounts(bound, running), false, "started running");
    assert.equal(mayChangeNodeCounts(running, { ...running, status: { phase: "Running", podIP: "10.0.0.1" } }), false);
    assert.equal(mayChangeNodeCounts(running, { ...running, status: { phase: "Succeeded" } }), true, "finished");
    assert.equal(mayChangeNodeCounts(running, { ...running, status: { phase: "Failed" } }), true, "failed");
    const replaced: Pod = { ...running, metadata: { ...running.metadata, uid: "uid-2" } };
    assert.equal(mayChangeNodeCounts(running, replaced), true, "another pod of the same name");
  });
});
