import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, problemsOf } from "./testing/test-support.ts";

const node = {
  metadata: { name: "node-1", labels: { "kubernetes.io/hostname": "node-1" } },
  spec: {
    taints: [{ key: "node.kubernetes.io/out-of-service", value: "nodeshutdown", effect: "NoExecute" }] as unknown[],
  },
  status: { capacity: { cpu: "4", memory: "16Gi", pods: "110" }, allocatable: { cpu: "3800m", memory: "15Gi" } },
};

describe("Node", () => {
  it("accepts a node with the out-of-service taint", () => {
    assert.deepEqual(problemsOf("Node", node), []);
  });

  it("checks taint effects and uniqueness", () => {
    const odd = changed(node, (copy) => {
      copy.spec.taints = [
        { key: "node.kubernetes.io/unreachable", effect: "NoExecute" },
        { key: "node.kubernetes.io/unreachable", effect: "NoExecute" },
        { key: "dedicated", value: "db", effect: "Evict" },
        { key: "dedicated" },
      ];
    });
    assert.deepEqual(problemsOf("Node", odd), [
      'spec.taints[1]: Duplicate value: {"key":"node.kubernetes.io/unreachable","effect":"NoExecute"}: taints must be unique by key and effect pair',
      'spec.taints[2].effect: Unsupported value: "Evict": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      "spec.taints[3].effect: Required value",
    ]);
  });

  it("checks the quantities the kubelet reports", () => {
    const odd = changed(node, (copy) => {
      copy.status.capacity.memory = "16 GiB";
    });
    assert.equal(
      problemsOf("Node", odd)[0]?.startsWith('status.capacity[memory]: Invalid value: "16 GiB": quantities must match'),
      true,
    );
  });
});
