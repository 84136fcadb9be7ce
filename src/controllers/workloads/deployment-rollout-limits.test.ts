import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Deployment } from "../../api/objects.ts";
import { maxSurge, maxUnavailable, scaledValue } from "./deployment-rollout-limits.ts";

function deployment(
  replicas: number,
  rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string },
): Deployment {
  return {
    metadata: { name: "web" },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: {},
      ...(rollingUpdate === undefined ? {} : { strategy: { type: "RollingUpdate", rollingUpdate } }),
    },
  };
}

describe("rollout limits", () => {
  it("rounds the default 25% surge up and 25% unavailable down, as Kubernetes does", () => {
    assert.deepEqual([maxSurge(deployment(1)), maxUnavailable(deployment(1))], [1, 0]);
    assert.deepEqual([maxSurge(deployment(3)), maxUnavailable(deployment(3))], [1, 0]);
    assert.deepEqual([maxSurge(deployment(10)), maxUnavailable(deployment(10))], [3, 2]);
  });

  it("lets one pod be unavailable when both limits round to zero, so the rollout can move", () => {
    assert.equal(maxUnavailable(deployment(1, { maxSurge: 0, maxUnavailable: "10%" })), 1);
    assert.equal(maxSurge(deployment(1, { maxSurge: 0, maxUnavailable: "10%" })), 0);
  });

  it("never allows more unavailable pods than replicas, and none at all for Recreate", () => {
    assert.equal(maxUnavailable(deployment(2, { maxUnavailable: 5 })), 2);
    const recreate: Deployment = {
      ...deployment(4),
      spec: { ...deployment(4).spec, selector: {}, template: {}, strategy: { type: "Recreate" } },
    };
    assert.deepEqual([maxSurge(recreate), maxUnavailable(recreate)], [0, 0]);
  });

  it("names the field when a value is neither a number nor a percentage", () => {
    assert.throws(
      () => scaledValue("lots", 4, true, "spec.strategy.rollingUpdate.maxSurge"),
      /maxSurge: "lots" is neither/,
    );
  });
});
