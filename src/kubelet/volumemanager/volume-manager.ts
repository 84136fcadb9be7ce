/**
 * The kubelet's volume manager (pkg/kubelet/volumemanager): what the node agent calls to get a
 * pod's volumes attached and mounted before its containers start, and unmounted after they stop.
 * The implementation is `createVolumeManager` (volume-manager-impl.ts); this file is the contract.
 */
import type { Pod } from "../../api/objects.ts";

export interface VolumeManager {
  /** Reconstructs state from the pods directory, then starts the populator and reconciler loops. */
  run(): void;
  /** Stops both loops and waits for the pass in progress; operations already started finish on their own. */
  stop(): Promise<void>;
  /**
   * WaitForAttachAndMount: resolves when every volume the pod's containers use is mounted; rejects
   * after `podAttachAndMountTimeoutMs` with
   * `unmounted volumes=[...], unattached volumes=[...], failed to process volumes=[...]: timed out waiting for the condition`
   * (lists sorted), or early with the populator's error for this pod. The caller emits the
   * `FailedMount` event `Unable to attach or mount volumes: <message>`.
   */
  waitForAttachAndMount(pod: Pod): Promise<void>;
  /** WaitForUnmount: resolves when no volume of the pod is mounted; rejects with `mounted volumes=[...]: <wait error>`. */
  waitForUnmount(pod: Pod): Promise<void>;
  /**
   * Attachable volumes in DSW ∪ ASW, sorted (node.status.volumesInUse). Write it to the node only
   * once `statesHaveBeenSynced()` is true; before that leave the node's old value untouched.
   */
  getVolumesInUse(): string[];
  /** True once reconstruction from disk has finished. */
  statesHaveBeenSynced(): boolean;
  /** Called after a successful node status write with the `volumesInUse` that was written. */
  markVolumesAsReportedInUse(volumes: readonly string[]): void;
  /** Whether any volume directory of the pod still exists on disk (SyncTerminatedPod's check). */
  podVolumesExist(podUID: string): Promise<boolean>;
  /** Mounted volumes of a pod by outer volume name → host path (what containers would bind). */
  getMountedVolumesForPod(podUID: string): Map<string, string>;
  /** Marks the pod for re-processing (ReprocessPod), e.g. on every pod sync. */
  reprocessPod(podUID: string): void;
}
