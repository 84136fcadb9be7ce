import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { testPod } from "../client/testing/test-api.ts";
import { DEFAULT_TIMERS } from "../timers.ts";
import { effectiveTolerations, withDefaultTolerations } from "./default-tolerations.ts";

const seconds = {
  notReadySeconds: DEFAULT_TIMERS.defaultNotReadyTolerationSeconds,
  unreachableSeconds: DEFAULT_TIMERS.defaultUnreachableTolerationSeconds,
};

describe("DefaultTolerationSeconds admission", () => {
  it("adds not-ready and unreachable NoExecute tolerations for 300 s to a pod without them", () => {
    const admitted = withDefaultTolerations(testPod("shop", "web-0"), seconds);
    assert.deepEqual(admitted.spec?.tolerations, [
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    ]);
  });

  it("keeps the pod's own toleration for one key and adds only the missing one", () => {
    const mine = {
      key: "node.kubernetes.io/unreachable",
      operator: "Exists",
      effect: "NoExecute",
      tolerationSeconds: 30,
    };
    assert.deepEqual(effectiveTolerations([mine], seconds), [
      mine,
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    ]);
  });

  it("treats a toleration of every key or every effect as already tolerating", () => {
    const everything = [{ operator: "Exists" }];
    const pod = testPod("shop", "daemon");
    pod.spec = { ...pod.spec, containers: pod.spec?.containers ?? [], tolerations: everything };
    assert.equal(withDefaultTolerations(pod, seconds), pod);
    const anyEffect = [
      { key: "node.kubernetes.io/not-ready", operator: "Exists" },
      { key: "node.kubernetes.io/unreachable", operator: "Exists" },
    ];
    assert.deepEqual(effectiveTolerations(anyEffect, seconds), anyEffect);
  });

  it("does not count a NoSchedule toleration", () => {
    const noSchedule = [{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoSchedule" }];
    assert.equal(effectiveTolerations(noSchedule, seconds).length, 3);
  });
});
