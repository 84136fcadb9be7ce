import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeletVolumeManagerDebugState, OperationDebugState } from "./debug-state.ts";
import { laneOf } from "./lanes.ts";
import { type ComponentStates, noComponentStates, stateChanges } from "./state-changes.ts";

const volume = "kubernetes.io/csi/disk.csi.kvol.io^disk-1";

function kubelet(operations: OperationDebugState[], mounted: boolean): ComponentStates {
  const state: KubeletVolumeManagerDebugState = {
    apiVersion: "debug.kvol.io/v1",
    kind: "KubeletVolumeManagerState",
    nodeName: "node-1",
    time: "2026-01-01T00:00:00.000000Z",
    desiredStateOfWorld: [
      {
        volumeName: volume,
        pluginIsAttachable: true,
        reportedInUse: true,
        pods: [{ podUID: "uid-1", namespace: "default", name: "web-0", outerVolumeSpecName: "data" }],
      },
    ],
    actualStateOfWorld: mounted
      ? [
          {
            volumeName: volume,
            pluginName: "kubernetes.io/csi",
            deviceMountState: "DeviceGloballyMounted",
            devicePath: "/dev/loop3",
            deviceMountPath: "/var/lib/kubelet/plugins/kubernetes.io/csi/disk.csi.kvol.io/x/globalmount",
            pods: [],
          },
        ]
      : [],
    operations,
    registeredCsiDrivers: [],
    busyMounts: [],
  };
  return { kubelets: { "node-1": state } };
}

const failedMount: OperationDebugState = {
  operationName: "volume_mount",
  volumeName: volume,
  podName: "uid-1",
  nodeName: "node-1",
  running: false,
  lastError: "mount failed: exit status 32",
  lastErrorTime: "2026-01-01T00:00:10.000000Z",
  noRetriesPermittedUntil: "2026-01-01T00:00:10.500000Z",
  durationBeforeRetry: "500ms",
};

describe("stateChanges", () => {
  const t0 = Date.UTC(2026, 0, 1);

  it("a failed operation is a backoff bar on the kubelet lane, up to its next permitted retry", () => {
    const entries = stateChanges(kubelet([], false), kubelet([failedMount], false), t0 + 11_000);
    const backoff = entries.find((entry) => entry.kind === "backoff");
    assert.deepEqual(backoff && { lane: backoff.lane, atMs: backoff.atMs - t0, untilMs: (backoff.untilMs ?? 0) - t0 }, {
      lane: "kubelet",
      atMs: 10_000,
      untilMs: 10_500,
    });
    assert.equal(
      backoff?.message,
      "volume_mount of volume disk-1 on node-1 failed: mount failed: exit status 32; no retries permitted until 2026-01-01T00:00:10.500000Z (durationBeforeRetry 500ms)",
    );
    // The same failure read again is not a new entry; a new failure is.
    assert.deepEqual(stateChanges(kubelet([failedMount], false), kubelet([failedMount], false), t0 + 12_000), []);
  });

  it("a volume entering the desired state, then mounted, then the operation gone", () => {
    const wanted = stateChanges(noComponentStates, kubelet([], false), t0).map(
      (entry) => `${entry.lane}: ${entry.message}`,
    );
    assert.deepEqual(wanted, ["kubelet: desired: volume disk-1 for pod default/web-0"]);
    const mounted = stateChanges(kubelet([failedMount], false), kubelet([], true), t0).map(
      (entry) => `${entry.lane}: ${entry.message}`,
    );
    assert.deepEqual(mounted, [
      "kernel: actual: disk-1 DeviceGloballyMounted at /var/lib/kubelet/plugins/kubernetes.io/csi/disk.csi.kvol.io/x/globalmount",
      "kubelet: volume_mount of volume disk-1 on node-1 ended",
    ]);
  });

  it("Events find their component's lane", () => {
    assert.deepEqual(
      [
        "default-scheduler",
        "persistentvolume-controller",
        "attachdetach-controller",
        "kubelet",
        "external-provisioner",
        "node-controller",
      ].map(laneOf),
      ["scheduler", "pv-controller", "attachdetach", "kubelet", "csi", "cluster"],
    );
  });
});
