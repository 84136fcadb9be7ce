import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "../../api/objects.ts";
import { podDeletionCostAnnotation, podsToDelete } from "./pods-to-delete.ts";

interface PodShape {
  node?: string;
  phase?: string;
  readySince?: string;
  created?: string;
  cost?: number;
}

function pod(name: string, shape: PodShape): Pod {
  return {
    metadata: {
      name,
      creationTimestamp: shape.created ?? "2026-01-01T00:00:00Z",
      ...(shape.cost === undefined ? {} : { annotations: { [podDeletionCostAnnotation]: String(shape.cost) } }),
    },
    spec: { containers: [], ...(shape.node ? { nodeName: shape.node } : {}) },
    status: {
      phase: shape.phase ?? "Pending",
      ...(shape.readySince
        ? { conditions: [{ type: "Ready", status: "True", lastTransitionTime: shape.readySince }] }
        : {}),
    },
  };
}

const names = (pods: Pod[]) => pods.map((p) => p.metadata?.name);

describe("which pods a ReplicaSet deletes first", () => {
  it("prefers unscheduled, then pending, then not ready pods", () => {
    const running = pod("running", { node: "a", phase: "Running", readySince: "2026-01-01T00:00:00Z" });
    const notReady = pod("not-ready", { node: "b", phase: "Running" });
    const pending = pod("pending", { node: "c" });
    const unscheduled = pod("unscheduled", {});
    assert.deepEqual(names(podsToDelete([running, notReady, pending, unscheduled], 4)), [
      "unscheduled",
      "pending",
      "not-ready",
      "running",
    ]);
  });

  it("among ready pods, takes the cheaper, the doubled-up, then the one ready for less time", () => {
    const old = pod("old", { node: "a", phase: "Running", readySince: "2026-01-01T00:00:00Z" });
    const recent = pod("recent", { node: "b", phase: "Running", readySince: "2026-01-01T00:05:00Z" });
    assert.deepEqual(names(podsToDelete([old, recent], 1)), ["recent"]);
    const cheap = pod("cheap", { node: "c", phase: "Running", readySince: "2026-01-01T00:00:00Z", cost: -10 });
    assert.deepEqual(names(podsToDelete([old, recent, cheap], 1)), ["cheap"]);
    const neighbour = pod("neighbour", { node: "a", phase: "Running", readySince: "2026-01-01T00:00:00Z" });
    assert.deepEqual(names(podsToDelete([recent, old, neighbour], 2)).sort(), ["neighbour", "old"]);
  });
});
