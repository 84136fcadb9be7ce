/**
 * The kubelet's volume manager (pkg/kubelet/volumemanager): what the node agent calls to get a
 * pod's volumes attached and mounted before its containers start, and unmounted after they stop.
 * Build one with `createVolumeManager` (kubelet-volume-manager.ts); this file is the contract.
 *
 * What the node agent must do for Kubernetes' behaviour:
 * - call `waitForAttachAndMount` (or at least `reprocessPod`) on every pod sync, the periodic
 *   `kubeletSyncFrequencyMs` resync included: that is what refreshes secret, configMap, downward API
 *   and projected volumes (spec §3.7);
 * - write `getVolumesInUse()` to `node.status.volumesInUse` only once `statesHaveBeenSynced()`, and
 *   after each successful write call `markVolumesAsReportedInUse` with what was written: attachable
 *   volumes are not mounted before that (spec §3.9);
 * - finish a terminated pod only when `waitForUnmount` resolved and `podVolumesExist` is false.
 */
import type { Pod } from "../../api/objects.ts";
import type { SyncCancellation } from "../pod/sync-cancellation.ts";

export interface VolumeManager {
  /** Reconstructs state from the pods directory, then starts the populator and reconciler loops. */
  run(): void;
  /** Stops both loops and waits for the pass in progress; operations already started finish on their own. */
  stop(): Promise<void>;
  /**
   * WaitForAttachAndMount: resolves when every volume the pod's containers use is mounted; rejects
   * after `podAttachAndMountTimeoutMs` with
   * `unmounted volumes=[...], unattached volumes=[...], failed to process volumes=[...]: timed out waiting for the condition`
   * (lists sorted), or early with the populator's error for this pod in place of the wait error.
   * The caller emits the `FailedMount` event `Unable to attach or mount volumes: <message>`.
   * kvol (unless `repairCorruptedCsiMounts` is off): a mounted CSI volume of the pod whose path is a
   * dead mount is published again first, and counts as unmounted until it is (corrupted-mounts.ts).
   * When `cancelled` fires (the pod's sync is abandoned) the wait stops and rejects with
   * SyncCancelledError (`context canceled`), as Kubernetes' cancelled context stops its poll.
   */
  waitForAttachAndMount(pod: Pod, cancelled?: SyncCancellation): Promise<void>;
  /** WaitForUnmount: resolves when no volume of the pod is mounted; rejects with `mounted volumes=[...]: <wait error>`. */
  waitForUnmount(pod: Pod, cancelled?: SyncCancellation): Promise<void>;
  /**
   * Attachable volumes in DSW ∪ ASW, sorted. Write it to `node.status.volumesInUse` only once
   * `statesHaveBeenSynced()` is true; before that leave the node's old value untouched.
   */
  getVolumesInUse(): string[];
  /** True once reconstruction finished and reconstructed device paths were read from node status. */
  statesHaveBeenSynced(): boolean;
  /** Called after a successful node status write with the `volumesInUse` that was written. */
  markVolumesAsReportedInUse(volumes: readonly string[]): void;
  /**
   * Kubernetes' podVolumesExist (SyncTerminatedPod's check): true while the actual state records a
   * mount of the pod (mounted or uncertain), or a pod volume directory on disk is still a mount point
   * (or cannot be checked).
   */
  podVolumesExist(podUID: string): Promise<boolean>;
  /** Mounted volumes of a pod by outer volume name → host path (what containers would bind). */
  getMountedVolumesForPod(podUID: string): Map<string, string>;
  /** Marks the pod for re-processing (ReprocessPod), e.g. on every pod sync. */
  reprocessPod(podUID: string): void;
  /**
   * HandlePodCleanups' cleanupOrphanedPodDirs: removes `<root>/pods/<uid>` of pods not in
   * `knownPodUIDs` (pod manager ∪ runtime's running pods) once their volumes are gone, never across a
   * mount. Returns the problems met, one sentence each (for the log).
   */
  cleanupOrphanedPodDirs(knownPodUIDs: ReadonlySet<string>): Promise<string[]>;
}
