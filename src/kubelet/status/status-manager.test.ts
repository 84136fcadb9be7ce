import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ContainerStatus, PodStatus } from "kubernetes-types/core/v1.js";
import type { GeneratedPodStatus } from "./generate-pod-status.ts";
import { mergePodStatus } from "./status-manager.ts";

const running = (name: string): ContainerStatus => ({
  name,
  image: "busybox:1.36",
  imageID: "busybox:1.36@sha256:ab512471e34f10e894cfa69eec441e1412a1c418f681cdb04b15c219c8b1dd67",
  ready: true,
  restartCount: 0,
  state: { running: { startedAt: "2026-01-01T00:00:00Z" } },
  containerID: `containerd://${name}`,
});

/** What the kubelet stored after its first sync of a running two-container pod, as the API returns it. */
function storedStatus(): PodStatus {
  return {
    conditions: [
      { type: "PodScheduled", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" },
      { type: "Initialized", status: "True", lastTransitionTime: "2026-01-01T00:00:01Z" },
      { type: "ContainersReady", status: "True", lastTransitionTime: "2026-01-01T00:00:05Z" },
      { type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:05Z" },
    ],
    phase: "Running",
    hostIP: "10.0.0.1",
    hostIPs: [{ ip: "10.0.0.1" }],
    startTime: "2026-01-01T00:00:01Z",
    containerStatuses: [running("app"), running("sidecar")],
  };
}

/** The kubelet's next sync of the same pod, nothing changed. */
function generatedStatus(): GeneratedPodStatus {
  return {
    phase: "Running",
    conditions: [
      { type: "Initialized", status: "True" },
      { type: "ContainersReady", status: "True" },
      { type: "Ready", status: "True" },
    ],
    containerStatuses: [running("app"), running("sidecar")],
    hostIP: "10.0.0.1",
    startTime: "2026-01-01T00:00:01Z",
  };
}

/** 2026-01-01T00:01:00Z. */
const nowMs = 1_767_225_660_000;

describe("mergePodStatus", () => {
  it("returns the stored status itself when a repeated sync changes nothing (nothing to write)", () => {
    const stored = storedStatus();
    assert.equal(mergePodStatus(stored, generatedStatus(), nowMs), stored);
  });

  it("writes the new containerStatuses when one container changed, keeping unchanged conditions as they are", () => {
    const stored = storedStatus();
    const generated = generatedStatus();
    const restarted: ContainerStatus = {
      ...running("sidecar"),
      restartCount: 1,
      state: { running: { startedAt: "2026-01-01T00:00:50Z" } },
    };
    generated.containerStatuses = [running("app"), restarted];
    const merged = mergePodStatus(stored, generated, nowMs);
    assert.notEqual(merged, stored);
    assert.deepEqual(merged.containerStatuses, [running("app"), restarted]);
    assert.equal(merged.conditions, stored.conditions);
    assert.equal(merged.hostIPs, stored.hostIPs);
  });

  it("keeps a condition the kubelet does not own (PodScheduled) and moves only the changed ones", () => {
    const stored = storedStatus();
    const generated = generatedStatus();
    const notReady = {
      status: "False",
      reason: "ContainersNotReady",
      message: "containers with unready status: [app]",
    };
    generated.conditions = [
      { type: "Initialized", status: "True" },
      { type: "ContainersReady", ...notReady },
      { type: "Ready", ...notReady },
    ];
    const merged = mergePodStatus(stored, generated, nowMs);
    assert.deepEqual(merged.conditions, [
      { type: "PodScheduled", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" },
      { type: "Initialized", status: "True", lastTransitionTime: "2026-01-01T00:00:01Z" },
      { type: "ContainersReady", ...notReady, lastTransitionTime: "2026-01-01T00:01:00Z" },
      { type: "Ready", ...notReady, lastTransitionTime: "2026-01-01T00:01:00Z" },
    ]);
    assert.equal(merged.conditions?.[0], stored.conditions?.[0]);
    assert.equal(merged.conditions?.[1], stored.conditions?.[1]);
  });

  it("rewrites hostIPs when the node's IP changed", () => {
    const generated = generatedStatus();
    generated.hostIP = "10.0.0.2";
    const merged = mergePodStatus(storedStatus(), generated, nowMs);
    assert.equal(merged.hostIP, "10.0.0.2");
    assert.deepEqual(merged.hostIPs, [{ ip: "10.0.0.2" }]);
  });
});
