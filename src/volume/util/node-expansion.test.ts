/** What the kubelet decides for a claim whose filesystem may need to grow (runPreCheck). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolumeClaim } from "../../api/objects.ts";
import { parseQuantity } from "../../api/quantity.ts";
import { nodeExpansionTarget, planNodeExpansion } from "./node-expansion.ts";

function claim(status: NonNullable<PersistentVolumeClaim["status"]>, request = "2Gi"): PersistentVolumeClaim {
  return {
    metadata: { name: "data", namespace: "default" },
    spec: { resources: { requests: { storage: request } } },
    status: { phase: "Bound", ...status },
  };
}

const twoGi = parseQuantity("2Gi");

describe("planNodeExpansion", () => {
  it("grows a NodeResizePending claim, marking it in progress and writing the capacity after", () => {
    const pending = claim({
      capacity: { storage: "1Gi" },
      allocatedResources: { storage: "2Gi" },
      allocatedResourceStatuses: { storage: "NodeResizePending" },
    });
    assert.deepEqual(planNodeExpansion(pending, twoGi, false), {
      kind: "expand",
      markInProgress: true,
      writeCapacity: true,
      markInfeasibleOnFailure: false,
      unsupportedIsDone: false,
    });
    assert.equal(nodeExpansionTarget(pending, parseQuantity("3Gi")).toString(), "2Gi", "the allocated size wins");
  });

  it("waits while the controller still resizes or the node size was infeasible", () => {
    for (const status of ["ControllerResizeInProgress", "NodeResizeInfeasible"]) {
      const resizing = claim({ capacity: { storage: "1Gi" }, allocatedResourceStatuses: { storage: status } });
      assert.deepEqual(planNodeExpansion(resizing, twoGi, false), { kind: "skip" }, status);
    }
  });

  it("a claim grown on another node is grown here too, without writing it", () => {
    const grown = claim({ capacity: { storage: "2Gi" }, allocatedResources: { storage: "2Gi" } });
    assert.deepEqual(planNodeExpansion(grown, twoGi, false), {
      kind: "expand",
      markInProgress: false,
      writeCapacity: false,
      markInfeasibleOnFailure: false,
      unsupportedIsDone: true,
    });
  });

  it("a request changed after a final node failure makes the next failure infeasible", () => {
    const pending = claim(
      { capacity: { storage: "1Gi" }, allocatedResourceStatuses: { storage: "NodeResizeInProgress" } },
      "3Gi",
    );
    const plan = planNodeExpansion(pending, twoGi, true);
    assert.equal(plan.kind === "expand" && plan.markInfeasibleOnFailure, true);
  });

  it("an older resizer (no allocatedResources): grow to the PV's size and write the capacity", () => {
    const old = claim({ capacity: { storage: "1Gi" } });
    assert.equal(nodeExpansionTarget(old, twoGi).toString(), "2Gi");
    assert.deepEqual(planNodeExpansion(old, twoGi, false), {
      kind: "expand",
      markInProgress: false,
      writeCapacity: true,
      markInfeasibleOnFailure: false,
      unsupportedIsDone: true,
    });
  });
});
