import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type PodCondition, setPodCondition, updatePodCondition } from "./pod-conditions.ts";

const at = (seconds: number): number => Date.UTC(2026, 0, 1, 0, 0, seconds);

describe("setPodCondition", () => {
  it("keeps the condition there, and its transition time, when the same verdict is repeated", () => {
    const ready: PodCondition = { type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:05Z" };
    const conditions = [ready];
    assert.equal(setPodCondition(conditions, { type: "Ready", status: "True" }, at(40)), false);
    assert.equal(conditions[0], ready);
  });

  it("moves the transition time when the status changes, and reports the change", () => {
    const conditions: PodCondition[] = [{ type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:05Z" }];
    const notReady = {
      type: "Ready",
      status: "False",
      reason: "ContainersNotReady",
      message: "containers with unready status: [app]",
    };
    assert.equal(setPodCondition(conditions, notReady, at(40)), true);
    assert.deepEqual(conditions, [{ ...notReady, lastTransitionTime: "2026-01-01T00:00:40Z" }]);
  });

  it("keeps the transition time but reports a change of reason or message", () => {
    const conditions: PodCondition[] = [
      { type: "Ready", status: "False", reason: "ContainersNotReady", lastTransitionTime: "2026-01-01T00:00:05Z" },
    ];
    assert.equal(setPodCondition(conditions, { type: "Ready", status: "False", reason: "PodCompleted" }, at(40)), true);
    assert.deepEqual(conditions, [
      { type: "Ready", status: "False", reason: "PodCompleted", lastTransitionTime: "2026-01-01T00:00:05Z" },
    ]);
  });

  it("adds a condition not there yet, stamped now", () => {
    const { status, changed } = updatePodCondition(
      { phase: "Pending" },
      { type: "PodScheduled", status: "True" },
      at(7),
    );
    assert.equal(changed, true);
    assert.deepEqual(status, {
      phase: "Pending",
      conditions: [{ type: "PodScheduled", status: "True", lastTransitionTime: "2026-01-01T00:00:07Z" }],
    });
  });
});
