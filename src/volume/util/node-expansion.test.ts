/**
 * The kubelet's decision to grow a mounted claim's filesystem, and the claim it writes afterwards,
 * as Kubernetes' NodeExpander and MarkFSResizeFinished do.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import {
  claimStatusAfterNodeExpansion,
  claimStatusAfterNodeExpansionFailure,
  claimStatusBeforeNodeExpansion,
  planNodeExpansion,
} from "./node-expansion.ts";

const now = "2026-01-01T00:00:00Z";

function volume(size: string): PersistentVolume {
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name: "pv-1" },
    spec: { capacity: { storage: size } },
  };
}

function claimAwaitingNode(status?: string): PersistentVolumeClaim {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: "data", namespace: "default" },
    spec: { volumeName: "pv-1", resources: { requests: { storage: "2Gi" } } },
    status: {
      phase: "Bound",
      capacity: { storage: "1Gi" },
      allocatedResources: { storage: "2Gi" },
      ...(status === undefined ? {} : { allocatedResourceStatuses: { storage: status } }),
      conditions: [
        {
          type: "FileSystemResizePending",
          status: "True",
          lastTransitionTime: now,
          message: "Waiting for user to (re-)start a pod to finish file system resize of volume on node.",
        },
      ],
    },
  };
}

describe("kubelet node expansion", () => {
  it("expands to the PV's size in bytes when the PV outgrew the claim and the node part is pending", () => {
    assert.deepEqual(planNodeExpansion(volume("2Gi"), claimAwaitingNode("NodeResizePending")), {
      kind: "expand",
      requiredBytes: 2147483648n,
      newSize: "2Gi",
    });
    assert.equal(planNodeExpansion(volume("2Gi"), claimAwaitingNode("NodeResizeInProgress")).kind, "expand");
    assert.equal(planNodeExpansion(volume("2Gi"), claimAwaitingNode()).kind, "expand", "an old resizer sets no status");
  });

  it("does nothing when the claim already shows the PV's size, or the node part was infeasible", () => {
    assert.deepEqual(planNodeExpansion(volume("1Gi"), claimAwaitingNode("NodeResizePending")), { kind: "none" });
    assert.deepEqual(planNodeExpansion(volume("2Gi"), claimAwaitingNode("NodeResizeInfeasible")), { kind: "none" });
    assert.deepEqual(planNodeExpansion(volume("2Gi"), claimAwaitingNode("ControllerResizeInProgress")), {
      kind: "none",
    });
  });

  it("marks NodeResizeInProgress before calling the driver, only when the resizer tracks the status", () => {
    assert.deepEqual(
      claimStatusBeforeNodeExpansion(claimAwaitingNode("NodeResizePending"))?.allocatedResourceStatuses,
      {
        storage: "NodeResizeInProgress",
      },
    );
    assert.equal(claimStatusBeforeNodeExpansion(claimAwaitingNode()), undefined);
  });

  it("finishes: capacity is the new size, FileSystemResizePending and the resize status are gone", () => {
    const status = claimStatusAfterNodeExpansion(claimAwaitingNode("NodeResizeInProgress"), "2Gi");
    assert.deepEqual(status.capacity, { storage: "2Gi" });
    assert.equal(status.conditions, undefined);
    assert.equal(status.allocatedResourceStatuses, undefined);
    assert.deepEqual(status.allocatedResources, { storage: "2Gi" });
  });

  it("an infeasible failure makes the claim NodeResizeInfeasible with NodeResizeError; another only adds the condition", () => {
    const infeasible = claimStatusAfterNodeExpansionFailure(
      claimAwaitingNode("NodeResizeInProgress"),
      "boom",
      true,
      now,
    );
    assert.deepEqual(infeasible.allocatedResourceStatuses, { storage: "NodeResizeInfeasible" });
    const error = infeasible.conditions?.find((condition) => condition.type === "NodeResizeError");
    assert.equal(error?.message, "failed to expand pvc with boom");

    const transient = claimStatusAfterNodeExpansionFailure(
      claimAwaitingNode("NodeResizeInProgress"),
      "busy",
      false,
      now,
    );
    assert.deepEqual(transient.allocatedResourceStatuses, { storage: "NodeResizeInProgress" });
    assert.equal(
      transient.conditions?.some((condition) => condition.type === "NodeResizeError"),
      true,
    );
    assert.deepEqual(transient.capacity, { storage: "1Gi" });
  });
});
