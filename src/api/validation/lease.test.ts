import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { problemsOf } from "./testing/test-support.ts";

const lease = {
  metadata: { name: "kvol-controller-manager", namespace: "kube-system" },
  spec: {
    holderIdentity: "server-1_7f3c",
    leaseDurationSeconds: 15,
    acquireTime: "2026-01-01T00:00:00.000000Z",
    renewTime: "2026-01-01T00:00:10.000000Z",
    leaseTransitions: 0,
  },
};

describe("Lease", () => {
  it("accepts a leader election lease", () => {
    assert.deepEqual(problemsOf("Lease", lease), []);
  });

  it("requires a positive duration and a non-negative transition count", () => {
    const odd = { ...lease, spec: { ...lease.spec, leaseDurationSeconds: 0, leaseTransitions: -1 } };
    assert.deepEqual(problemsOf("Lease", odd), [
      "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
      "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
    ]);
  });

  it("reports a duration written as text", () => {
    const text = { ...lease, spec: { ...lease.spec, leaseDurationSeconds: "15s" } };
    assert.deepEqual(problemsOf("Lease", text), [
      'spec.leaseDurationSeconds: Invalid value: "string": spec.leaseDurationSeconds in body must be of type integer: "string"',
    ]);
  });
});
