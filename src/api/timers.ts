/**
 * Every Kubernetes timer kvol reproduces, in one place, with its unit in its name and the
 * Kubernetes source it comes from. Components take a `Timers` object so tests and scenarios can
 * override any value; `DEFAULT_TIMERS` is what Kubernetes ships.
 *
 * The operation backoff (500 ms doubling to 2 min 2 s) lives with its implementation in
 * `runtime/backoff.ts`; mount-utils' retry counts in `host/mount/constants.ts`.
 */
export interface Timers {
  // PV controller (pv_controller_base.go, pv_controller.go)
  /** `--pvclaimbinder-sync-period`: full resync of every PV and PVC. */
  pvControllerResyncPeriodMs: number;
  /** createProvisionedPVRetryCount × createProvisionedPVInterval. */
  provisionedPvCreateRetries: number;
  provisionedPvCreateRetryIntervalMs: number;

  // Attach/detach controller (attach_detach_controller.go DefaultTimerConfig)
  adcReconcilerLoopPeriodMs: number;
  /** maxWaitForUnmountDuration: force detach from a not-Ready node after this long. */
  adcMaxWaitForUnmountMs: number;
  adcDesiredStatePopulatorLoopPeriodMs: number;
  adcPopulatorFullRelistPeriodMs: number;
  /** `--attach-detach-reconcile-sync-period`: the "are volumes still attached" check. */
  adcReconcilerSyncPeriodMs: number;
  adcPvcWorkerPeriodMs: number;

  // CSI (pkg/volume/csi, external-attacher, external-provisioner)
  /** csiTimeout: every CSI call from the kubelet, and the ADC's VolumeAttachment wait. */
  csiTimeoutMs: number;
  externalAttacherTimeoutMs: number;
  externalAttacherRetryStartMs: number;
  externalAttacherRetryMaxMs: number;
  externalAttacherResyncPeriodMs: number;
  externalProvisionerTimeoutMs: number;
  externalProvisionerRetryStartMs: number;
  externalProvisionerRetryMaxMs: number;
  externalResizerTimeoutMs: number;
  externalResizerRetryStartMs: number;
  externalResizerRetryMaxMs: number;
  externalResizerResyncPeriodMs: number;

  // Kubelet (volume_manager.go, kubelet config defaults)
  kubeletReconcilerLoopPeriodMs: number;
  kubeletDesiredStatePopulatorLoopPeriodMs: number;
  /** podAttachAndMountTimeout: WaitForAttachAndMount gives up after this long. */
  podAttachAndMountTimeoutMs: number;
  podAttachAndMountRetryIntervalMs: number;
  /** waitForAttachTimeout: the longest one mount operation waits for its attach. */
  waitForAttachTimeoutMs: number;
  /** SyncTerminatedPod polls for volume directories to be gone. */
  terminatedPodVolumeCleanupPollMs: number;
  nodeStatusUpdateFrequencyMs: number;
  /** Lease renewal: the node lease duration is 40 s and the kubelet renews at a quarter of it. */
  nodeLeaseRenewIntervalMs: number;
  nodeLeaseDurationSeconds: number;
  /** `syncFrequency`: periodic pod resync, which refreshes secret and configMap volumes. */
  kubeletSyncFrequencyMs: number;

  // Node lifecycle and pod GC (nodelifecycle, podgc, DefaultTolerationSeconds admission)
  nodeMonitorPeriodMs: number;
  nodeMonitorGracePeriodMs: number;
  /** `--node-startup-grace-period`: how long a node that never posted a Ready condition is left alone. */
  nodeStartupGracePeriodMs: number;
  defaultNotReadyTolerationSeconds: number;
  defaultUnreachableTolerationSeconds: number;
  podGcPeriodMs: number;
  /** podgc quarantineTime: a pod's node must stay missing this long before the pod is force-deleted. */
  podGcQuarantineMs: number;

  // Scheduler (kube-scheduler config defaults, scheduling_queue.go, volumebinding plugin)
  /** `podInitialBackoffSeconds`: the first retry delay of an unschedulable pod, doubling per attempt. */
  schedulerPodInitialBackoffMs: number;
  /** `podMaxBackoffSeconds`: the cap of that doubling. */
  schedulerPodMaxBackoffMs: number;
  /** flushBackoffQCompleted: how often pods whose backoff ended move to the active queue. */
  schedulerBackoffFlushPeriodMs: number;
  /** flushUnschedulablePodsLeftover: how often long-unschedulable pods are retried regardless of events. */
  schedulerUnschedulableFlushPeriodMs: number;
  /** podMaxInUnschedulablePodsDuration: an unschedulable pod is retried at the latest after this long. */
  schedulerMaxInUnschedulablePodsMs: number;
  /** VolumeBindingArgs.bindTimeoutSeconds: how long PreBind waits for the pod's claims to be bound. */
  volumeBindingTimeoutMs: number;
  /** BindPodVolumes polls the claims' binding this often. */
  volumeBindingPollIntervalMs: number;

  // Leader election of the control plane (kube-controller-manager --leader-elect-*, client-go leaderelection)
  /** `--leader-elect-lease-duration`: how long followers wait after the last renewal they saw before taking over. */
  leaderElectionLeaseDurationMs: number;
  /** `--leader-elect-renew-deadline`: a leader that has not renewed within this long stops leading. */
  leaderElectionRenewDeadlineMs: number;
  /** `--leader-elect-retry-period`: how often candidates try to acquire and the leader renews. */
  leaderElectionRetryPeriodMs: number;
  // The CSI sidecars' own leader election (csi-lib-utils standardflags `--leader-election-*`)
  /** `--leader-election-lease-duration` of csi-provisioner and csi-attacher. */
  csiSidecarLeaderElectionLeaseDurationMs: number;
  /** `--leader-election-renew-deadline` of csi-provisioner and csi-attacher. */
  csiSidecarLeaderElectionRenewDeadlineMs: number;
  /** `--leader-election-retry-period` of csi-provisioner and csi-attacher. */
  csiSidecarLeaderElectionRetryPeriodMs: number;
}

export const DEFAULT_TIMERS: Readonly<Timers> = Object.freeze({
  pvControllerResyncPeriodMs: 15_000,
  provisionedPvCreateRetries: 5,
  provisionedPvCreateRetryIntervalMs: 10_000,

  adcReconcilerLoopPeriodMs: 100,
  adcMaxWaitForUnmountMs: 6 * 60_000,
  adcDesiredStatePopulatorLoopPeriodMs: 60_000,
  adcPopulatorFullRelistPeriodMs: 3 * 60_000,
  adcReconcilerSyncPeriodMs: 60_000,
  adcPvcWorkerPeriodMs: 1_000,

  csiTimeoutMs: 2 * 60_000,
  externalAttacherTimeoutMs: 15_000,
  externalAttacherRetryStartMs: 1_000,
  externalAttacherRetryMaxMs: 5 * 60_000,
  externalAttacherResyncPeriodMs: 10 * 60_000,
  externalProvisionerTimeoutMs: 15_000,
  externalProvisionerRetryStartMs: 1_000,
  externalProvisionerRetryMaxMs: 5 * 60_000,
  externalResizerTimeoutMs: 10_000,
  externalResizerRetryStartMs: 1_000,
  externalResizerRetryMaxMs: 5 * 60_000,
  externalResizerResyncPeriodMs: 10 * 60_000,

  kubeletReconcilerLoopPeriodMs: 100,
  kubeletDesiredStatePopulatorLoopPeriodMs: 100,
  podAttachAndMountTimeoutMs: 2 * 60_000 + 3_000,
  podAttachAndMountRetryIntervalMs: 300,
  waitForAttachTimeoutMs: 10 * 60_000,
  terminatedPodVolumeCleanupPollMs: 100,
  nodeStatusUpdateFrequencyMs: 10_000,
  nodeLeaseRenewIntervalMs: 10_000,
  nodeLeaseDurationSeconds: 40,
  kubeletSyncFrequencyMs: 60_000,

  nodeMonitorPeriodMs: 5_000,
  nodeMonitorGracePeriodMs: 40_000,
  nodeStartupGracePeriodMs: 60_000,
  defaultNotReadyTolerationSeconds: 300,
  defaultUnreachableTolerationSeconds: 300,
  podGcPeriodMs: 20_000,
  podGcQuarantineMs: 40_000,

  schedulerPodInitialBackoffMs: 1_000,
  schedulerPodMaxBackoffMs: 10_000,
  schedulerBackoffFlushPeriodMs: 1_000,
  schedulerUnschedulableFlushPeriodMs: 30_000,
  schedulerMaxInUnschedulablePodsMs: 5 * 60_000,
  volumeBindingTimeoutMs: 600_000,
  volumeBindingPollIntervalMs: 1_000,

  leaderElectionLeaseDurationMs: 15_000,
  leaderElectionRenewDeadlineMs: 10_000,
  leaderElectionRetryPeriodMs: 2_000,
  csiSidecarLeaderElectionLeaseDurationMs: 15_000,
  csiSidecarLeaderElectionRenewDeadlineMs: 10_000,
  csiSidecarLeaderElectionRetryPeriodMs: 5_000,
});

/** The defaults with some values replaced; unknown names are rejected so a typo cannot pass silently. */
export function timersWith(overrides: Partial<Timers>): Timers {
  for (const name of Object.keys(overrides)) {
    if (!(name in DEFAULT_TIMERS)) throw new Error(`unknown timer "${name}": see src/api/timers.ts for the names`);
  }
  return { ...DEFAULT_TIMERS, ...overrides };
}
