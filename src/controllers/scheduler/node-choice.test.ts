import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NodeChoice, numFeasibleNodesToFind } from "./node-choice.ts";

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

describe("NodeChoice", () => {
  it("takes the node with the fewest pods, then the smallest name, whatever order they come in", () => {
    const pods: Record<string, number> = { "node-a": 3, "node-b": 1, "node-c": 1, "node-d": 2 };
    for (const order of [
      ["node-c", "node-a", "node-b", "node-d"],
      ["node-b", "node-c", "node-d", "node-a"],
      ["node-a", "node-d", "node-c", "node-b"],
    ]) {
      const choice = new NodeChoice<string>((name) => pods[name] ?? 0);
      for (const nodeName of order) choice.offer(nodeName, `binding for ${nodeName}`);
      assert.deepEqual(choice.chosen(), { nodeName: "node-b", value: "binding for node-b" }, order.join(" "));
    }
    assert.equal(new NodeChoice(() => 0).chosen(), undefined);
  });
});
