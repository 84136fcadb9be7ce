import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, problemsOf } from "./testing/test-support.ts";

type Driver = Record<string, unknown>;

const csiNode = {
  metadata: { name: "node-1" },
  spec: {
    drivers: [
      {
        name: "hostpath.csi.k8s.io",
        nodeID: "node-1",
        topologyKeys: ["topology.hostpath.csi/node"],
        allocatable: { count: 20 },
      },
    ] as Driver[],
  },
};

describe("CSINode", () => {
  it("accepts a registered driver", () => {
    assert.deepEqual(problemsOf("CSINode", csiNode), []);
  });

  it("requires driver names and node IDs, once per driver", () => {
    const broken = changed(csiNode, (copy) => {
      copy.spec.drivers.push({ name: "hostpath.csi.k8s.io", nodeID: "" }, { nodeID: "x" });
    });
    assert.deepEqual(problemsOf("CSINode", broken), [
      "spec.drivers[1].nodeID: Required value",
      'spec.drivers[1].name: Duplicate value: "hostpath.csi.k8s.io"',
      "spec.drivers[2].name: Required value",
    ]);
  });

  it("limits node IDs and allocatable counts", () => {
    const odd = changed(csiNode, (copy) => {
      copy.spec.drivers = [{ name: "d.csi", nodeID: "n".repeat(257), allocatable: { count: -1 } }];
    });
    assert.deepEqual(problemsOf("CSINode", odd), [
      `spec.drivers[0].nodeID: Invalid value: "${"n".repeat(257)}": must be 256 characters or less`,
      "spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0",
    ]);
  });

  it("lets a driver come and go and its count change, but not its node ID", () => {
    const recounted = changed(csiNode, (copy) => {
      copy.spec.drivers[0] = { ...copy.spec.drivers[0], allocatable: { count: 10 } };
      copy.spec.drivers.push({ name: "nfs.csi.k8s.io", nodeID: "node-1" });
    });
    assert.deepEqual(problemsOf("CSINode", recounted, csiNode), []);
    const renamed = changed(csiNode, (copy) => {
      copy.spec.drivers[0] = { ...copy.spec.drivers[0], nodeID: "node-one" };
    });
    const problems = problemsOf("CSINode", renamed, csiNode);
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? "", /^spec\.drivers: Invalid value: .*"nodeID":"node-one".*: field is immutable$/);
  });
});
