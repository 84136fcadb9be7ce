import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chooseNode, numFeasibleNodesToFind } from "./node-choice.ts";

describe("numFeasibleNodesToFind", () => {
  it("examines small clusters fully and large ones by kube-scheduler's adaptive percentage", () => {
    assert.equal(numFeasibleNodesToFind(3), 3);
    assert.equal(numFeasibleNodesToFind(99), 99);
    assert.equal(numFeasibleNodesToFind(100), 100);
    assert.equal(numFeasibleNodesToFind(1_000), 420);
    assert.equal(numFeasibleNodesToFind(5_000), 500);
    assert.equal(numFeasibleNodesToFind(20_000), 1_000);
  });
});

describe("chooseNode", () => {
  it("takes the node with the fewest pods, then the smallest name", () => {
    const pods: Record<string, number> = { "node-a": 3, "node-b": 1, "node-c": 1 };
    const feasible = ["node-c", "node-a", "node-b"].map((nodeName) => ({ nodeName }));
    assert.equal(chooseNode(feasible, (name) => pods[name] ?? 0)?.nodeName, "node-b");
    assert.equal(
      chooseNode([], () => 0),
      undefined,
    );
  });
});
