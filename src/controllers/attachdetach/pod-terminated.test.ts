import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ContainerState, Pod } from "kubernetes-types/core/v1.js";
import { isPodTerminated } from "./pod-terminated.ts";

function pod(options: { phase?: string; deleting?: boolean; states?: ContainerState[] }): Pod {
  return {
    metadata: { name: "p", ...(options.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) },
    status: {
      ...(options.phase ? { phase: options.phase } : {}),
      containerStatuses: (options.states ?? []).map((state) => ({
        name: "c",
        image: "i",
        imageID: "",
        ready: false,
        restartCount: 0,
        state,
      })),
    },
  };
}

describe("isPodTerminated", () => {
  it("is true for Failed and Succeeded pods", () => {
    assert.equal(isPodTerminated(pod({ phase: "Succeeded" })), true);
    assert.equal(isPodTerminated(pod({ phase: "Failed", states: [{ running: {} }] })), true);
  });

  it("keeps a terminating pod whose containers still show running (its node went silent)", () => {
    assert.equal(isPodTerminated(pod({ phase: "Running", deleting: true, states: [{ running: {} }] })), false);
  });

  it("is true for a terminating pod whose containers all stopped or never started", () => {
    assert.equal(
      isPodTerminated(pod({ phase: "Running", deleting: true, states: [{ terminated: { exitCode: 0 } }] })),
      true,
    );
    assert.equal(isPodTerminated(pod({ phase: "Pending", deleting: true, states: [{ waiting: {} }] })), true);
  });

  it("is false for a running pod that is not being deleted", () => {
    assert.equal(isPodTerminated(pod({ phase: "Running", states: [{ terminated: { exitCode: 1 } }] })), false);
  });
});
