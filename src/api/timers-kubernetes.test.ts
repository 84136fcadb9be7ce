import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_TIMERS, type Timers } from "./timers.ts";

const SECOND = 1_000;
const MINUTE = 60_000;

/**
 * Every default timer with Kubernetes' value written literally and where Kubernetes defines it.
 * A changed value fails its row; a timer added to `timers.ts` without a row fails the coverage test.
 */
const KUBERNETES_TIMERS: Record<keyof Timers, { value: number; source: string }> = {
  // PV controller
  pvControllerResyncPeriodMs: {
    value: 15 * SECOND,
    source: "kube-controller-manager --pvclaimbinder-sync-period (persistentvolume config defaults)",
  },
  provisionedPvCreateRetries: {
    value: 5,
    source: "pkg/controller/volume/persistentvolume/pv_controller.go createProvisionedPVRetryCount",
  },
  provisionedPvCreateRetryIntervalMs: {
    value: 10 * SECOND,
    source: "pkg/controller/volume/persistentvolume/pv_controller.go createProvisionedPVInterval",
  },

  // Attach/detach controller
  adcReconcilerLoopPeriodMs: {
    value: 100,
    source: "attachdetach/attach_detach_controller.go DefaultTimerConfig.ReconcilerLoopPeriod",
  },
  adcMaxWaitForUnmountMs: {
    value: 6 * MINUTE,
    source: "attachdetach/attach_detach_controller.go DefaultTimerConfig.ReconcilerMaxWaitForUnmountDuration",
  },
  adcDesiredStatePopulatorLoopPeriodMs: {
    value: 1 * MINUTE,
    source: "attachdetach/attach_detach_controller.go DefaultTimerConfig.DesiredStateOfWorldPopulatorLoopSleepPeriod",
  },
  adcPopulatorFullRelistPeriodMs: {
    value: 3 * MINUTE,
    source:
      "attachdetach/attach_detach_controller.go DefaultTimerConfig.DesiredStateOfWorldPopulatorListPodsRetryDuration",
  },
  adcReconcilerSyncPeriodMs: {
    value: 1 * MINUTE,
    source: "kube-controller-manager --attach-detach-reconcile-sync-period",
  },
  adcPvcWorkerPeriodMs: {
    value: 1 * SECOND,
    source: "attachdetach/attach_detach_controller.go Run (wait.Until pvcWorker, time.Second)",
  },

  // CSI
  csiTimeoutMs: { value: 2 * MINUTE, source: "pkg/volume/csi/csi_plugin.go csiTimeout" },
  externalAttacherTimeoutMs: { value: 15 * SECOND, source: "external-attacher cmd/csi-attacher/main.go --timeout" },
  externalAttacherRetryStartMs: {
    value: 1 * SECOND,
    source: "external-attacher cmd/csi-attacher/main.go --retry-interval-start",
  },
  externalAttacherRetryMaxMs: {
    value: 5 * MINUTE,
    source: "external-attacher cmd/csi-attacher/main.go --retry-interval-max",
  },
  externalAttacherResyncPeriodMs: { value: 10 * MINUTE, source: "external-attacher cmd/csi-attacher/main.go --resync" },
  externalResizerTimeoutMs: { value: 10 * SECOND, source: "external-resizer cmd/csi-resizer/main.go --timeout" },
  externalResizerRetryStartMs: {
    value: 1 * SECOND,
    source: "external-resizer cmd/csi-resizer/main.go --retry-interval-start",
  },
  externalResizerRetryMaxMs: {
    value: 5 * MINUTE,
    source: "external-resizer cmd/csi-resizer/main.go --retry-interval-max",
  },
  externalResizerResyncPeriodMs: { value: 10 * MINUTE, source: "external-resizer cmd/csi-resizer/main.go --resync" },
  externalProvisionerTimeoutMs: {
    value: 15 * SECOND,
    source: "external-provisioner cmd/csi-provisioner/csi-provisioner.go --timeout",
  },
  externalProvisionerRetryStartMs: {
    value: 1 * SECOND,
    source: "external-provisioner cmd/csi-provisioner/csi-provisioner.go --retry-interval-start",
  },
  externalProvisionerRetryMaxMs: {
    value: 5 * MINUTE,
    source: "external-provisioner cmd/csi-provisioner/csi-provisioner.go --retry-interval-max",
  },

  // Kubelet
  kubeletReconcilerLoopPeriodMs: {
    value: 100,
    source: "pkg/kubelet/volumemanager/volume_manager.go reconcilerLoopSleepPeriod",
  },
  kubeletDesiredStatePopulatorLoopPeriodMs: {
    value: 100,
    source: "pkg/kubelet/volumemanager/volume_manager.go desiredStateOfWorldPopulatorLoopSleepPeriod",
  },
  podAttachAndMountTimeoutMs: {
    value: 2 * MINUTE + 3 * SECOND,
    source: "pkg/kubelet/volumemanager/volume_manager.go podAttachAndMountTimeout",
  },
  podAttachAndMountRetryIntervalMs: {
    value: 300,
    source: "pkg/kubelet/volumemanager/volume_manager.go podAttachAndMountRetryInterval",
  },
  waitForAttachTimeoutMs: {
    value: 10 * MINUTE,
    source: "pkg/kubelet/volumemanager/volume_manager.go waitForAttachTimeout",
  },
  terminatedPodVolumeCleanupPollMs: {
    value: 100,
    source: "pkg/kubelet/kubelet.go SyncTerminatedPod (wait.PollUntilContextCancel 100ms)",
  },
  nodeStatusUpdateFrequencyMs: { value: 10 * SECOND, source: "kubelet config defaults nodeStatusUpdateFrequency" },
  nodeLeaseRenewIntervalMs: {
    value: 10 * SECOND,
    source: "pkg/kubelet/kubelet.go nodeLeaseRenewIntervalFraction (0.25) × nodeLeaseDurationSeconds",
  },
  nodeLeaseDurationSeconds: { value: 40, source: "kubelet config defaults nodeLeaseDurationSeconds" },
  kubeletSyncFrequencyMs: { value: 1 * MINUTE, source: "kubelet config defaults syncFrequency" },

  // Node lifecycle and pod GC
  nodeMonitorPeriodMs: {
    value: 5 * SECOND,
    source: "kube-controller-manager --node-monitor-period (nodelifecycle config defaults)",
  },
  nodeMonitorGracePeriodMs: {
    value: 40 * SECOND,
    source: "kube-controller-manager --node-monitor-grace-period (nodelifecycle config defaults; 50 s from 1.32)",
  },
  nodeStartupGracePeriodMs: { value: 1 * MINUTE, source: "kube-controller-manager --node-startup-grace-period" },
  defaultNotReadyTolerationSeconds: {
    value: 300,
    source: "plugin/pkg/admission/defaulttolerationseconds admission.go --default-not-ready-toleration-seconds",
  },
  defaultUnreachableTolerationSeconds: {
    value: 300,
    source: "plugin/pkg/admission/defaulttolerationseconds admission.go --default-unreachable-toleration-seconds",
  },
  podGcPeriodMs: { value: 20 * SECOND, source: "pkg/controller/podgc/gc_controller.go gcCheckPeriod" },
  podGcQuarantineMs: { value: 40 * SECOND, source: "pkg/controller/podgc/gc_controller.go quarantineTime" },

  // Scheduler
  schedulerPodInitialBackoffMs: {
    value: 1 * SECOND,
    source: "pkg/scheduler/apis/config/v1/defaults.go podInitialBackoffSeconds",
  },
  schedulerPodMaxBackoffMs: {
    value: 10 * SECOND,
    source: "pkg/scheduler/apis/config/v1/defaults.go podMaxBackoffSeconds",
  },
  schedulerBackoffFlushPeriodMs: {
    value: 1 * SECOND,
    source: "pkg/scheduler/internal/queue/scheduling_queue.go Run (flushBackoffQCompleted every 1 s)",
  },
  schedulerUnschedulableFlushPeriodMs: {
    value: 30 * SECOND,
    source: "pkg/scheduler/internal/queue/scheduling_queue.go Run (flushUnschedulablePodsLeftover every 30 s)",
  },
  schedulerMaxInUnschedulablePodsMs: {
    value: 5 * MINUTE,
    source: "pkg/scheduler/internal/queue/scheduling_queue.go DefaultPodMaxInUnschedulablePodsDuration",
  },
  volumeBindingTimeoutMs: {
    value: 600 * SECOND,
    source: "pkg/scheduler/apis/config/v1/defaults.go VolumeBindingArgs.BindTimeoutSeconds",
  },
  volumeBindingPollIntervalMs: {
    value: 1 * SECOND,
    source: "pkg/scheduler/framework/plugins/volumebinding/binder.go BindPodVolumes (poll every second)",
  },

  // Leader election
  leaderElectionLeaseDurationMs: {
    value: 15 * SECOND,
    source: "kube-controller-manager --leader-elect-lease-duration (component-base DefaultLeaderElectionConfiguration)",
  },
  leaderElectionRenewDeadlineMs: {
    value: 10 * SECOND,
    source: "kube-controller-manager --leader-elect-renew-deadline (component-base DefaultLeaderElectionConfiguration)",
  },
  leaderElectionRetryPeriodMs: {
    value: 2 * SECOND,
    source: "kube-controller-manager --leader-elect-retry-period (component-base DefaultLeaderElectionConfiguration)",
  },
  csiSidecarLeaderElectionLeaseDurationMs: {
    value: 15 * SECOND,
    source: "csi-provisioner, csi-attacher --leader-election-lease-duration (csi-lib-utils standardflags)",
  },
  csiSidecarLeaderElectionRenewDeadlineMs: {
    value: 10 * SECOND,
    source: "csi-provisioner, csi-attacher --leader-election-renew-deadline (csi-lib-utils standardflags)",
  },
  csiSidecarLeaderElectionRetryPeriodMs: {
    value: 5 * SECOND,
    source: "csi-provisioner, csi-attacher --leader-election-retry-period (csi-lib-utils standardflags)",
  },
};

describe("timers match Kubernetes", () => {
  for (const [name, { value, source }] of Object.entries(KUBERNETES_TIMERS)) {
    it(`${name} is ${value} (${source})`, () => {
      assert.equal(DEFAULT_TIMERS[name as keyof Timers], value, `${name} must be Kubernetes' ${source}`);
    });
  }

  it("has a Kubernetes row for every default timer", () => {
    assert.deepEqual(Object.keys(DEFAULT_TIMERS).sort(), Object.keys(KUBERNETES_TIMERS).sort());
  });
});
