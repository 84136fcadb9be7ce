/**
 * The kubelet's pod sync steps (kubelet.go SyncPod, SyncTerminatingPod, SyncTerminatedPod), as
 * the pod workers call them:
 * - syncPod reports the status (Pending, containers waiting `ContainerCreating`), makes the pod's
 *   directories, waits for the volume manager to attach and mount every volume the containers use
 *   — a failure is the Warning `FailedMount` `Unable to attach or mount volumes: <error>` and the
 *   sync is retried later — then starts the containers and reports Running;
 * - syncTerminatingPod stops the containers within the grace period;
 * - syncTerminatedPod waits for the volume manager to unmount, then polls until no volume directory
 *   of the pod is left on disk; only then may the final delete remove the pod from the API.
 */
import { posix } from "node:path";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { EventRecorder } from "../../api/events/recorder.ts";
import { objectKey } from "../../api/objects.ts";
import type { Host } from "../../host/host.ts";
import type { Clock } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { podDir, podVolumesDir } from "../../volume/paths.ts";
import type { KubeletContainerRuntime } from "../container/container-runtime.ts";
import { eventReason, unableToAttachOrMountMessage } from "../events.ts";
import type { Prober } from "../prober/prober.ts";
import { type GeneratedPodStatus, generatePodStatus } from "../status/generate-pod-status.ts";
import type { StatusManager } from "../status/status-manager.ts";
import type { VolumeManager } from "../volumemanager/volume-manager.ts";
import type { ContainerSync } from "./container-sync.ts";
import type { PodSyncHandler, SyncPodOutcome } from "./pod-workers.ts";
import { type SyncCancellation, SyncCancelledError } from "./sync-cancellation.ts";

interface PodSyncOptions {
  clock: Clock;
  host: Host;
  logger: Logger;
  recorder: EventRecorder;
  rootDir: string;
  hostIP: string;
  volumeManager: VolumeManager;
  statusManager: StatusManager;
  containers: ContainerSync;
  runtime: KubeletContainerRuntime;
  prober: Prober;
  terminatedPodVolumeCleanupPollMs: number;
  /** How long SyncTerminatedPod polls for volume directories before the worker retries it. */
  terminatedPodVolumeCleanupTimeoutMs: number;
}

const podDirMode = 0o750;
const podPluginsDirName = "plugins";

function isTerminalPhase(phase: string): boolean {
  return phase === "Succeeded" || phase === "Failed";
}

/** Resolves or rejects as `work` does, or rejects with SyncCancelledError once `cancelled` fires. */
function untilCancelled<T>(work: Promise<T>, cancelled: SyncCancellation): Promise<T> {
  if (cancelled.cancelled) {
    work.catch(() => undefined);
    return Promise.reject(new SyncCancelledError());
  }
  return new Promise<T>((resolve, reject) => {
    const onCancel = (): void => reject(new SyncCancelledError());
    cancelled.onCancel(onCancel);
    work.then(
      (value) => {
        cancelled.offCancel(onCancel);
        resolve(value);
      },
      (error: unknown) => {
        cancelled.offCancel(onCancel);
        reject(error);
      },
    );
  });
}

export class PodSync implements PodSyncHandler {
  constructor(private readonly options: PodSyncOptions) {}

  async syncPod(pod: Pod, cancelled: SyncCancellation): Promise<SyncPodOutcome> {
    const before = await this.reportStatus(pod, false);
    if (isTerminalPhase(before.phase)) return "terminal";
    await this.makePodDataDirs(pod);
    try {
      await untilCancelled(this.options.volumeManager.waitForAttachAndMount(pod, cancelled), cancelled);
    } catch (error) {
      if (error instanceof SyncCancelledError) return "running";
      const message = errorMessage(error);
      this.options.recorder.event(pod, "Warning", eventReason.failedMount, unableToAttachOrMountMessage(message));
      this.options.logger.error("Unable to attach or mount volumes for pod; skipping pod", {
        pod: objectKey(pod),
        error: message,
      });
      throw error;
    }
    try {
      await this.options.containers.syncContainers(pod);
    } catch (error) {
      await this.reportStatus(pod, false);
      throw error;
    }
    const after = await this.reportStatus(pod, false);
    return isTerminalPhase(after.phase) ? "terminal" : "running";
  }

  async syncTerminatingPod(pod: Pod, gracePeriodMs: number): Promise<void> {
    this.options.logger.info("SyncTerminatingPod enter", { pod: objectKey(pod), gracePeriodMs });
    await this.options.containers.killPod(pod, gracePeriodMs);
    await this.reportStatus(pod, false);
  }

  async syncTerminatedPod(pod: Pod, cancelled: SyncCancellation): Promise<void> {
    await this.reportStatus(pod, true);
    await untilCancelled(this.options.volumeManager.waitForUnmount(pod, cancelled), cancelled);
    await this.waitForVolumeDirsGone(pod, cancelled);
    this.options.logger.info("Pod termination cleaned up volume paths", { pod: objectKey(pod) });
  }

  async syncFinishedPod(pod: Pod, removedFromApi: boolean): Promise<void> {
    if (removedFromApi || !pod.metadata?.deletionTimestamp) return;
    await this.options.statusManager.deletePod(pod);
  }

  podForgotten(uid: string): void {
    this.options.prober.removePod(uid);
    this.options.containers.forgetPod(uid);
    if (this.options.runtime.isPodRunning(uid)) return;
    const removed = this.options.runtime.removePod(uid);
    if (removed instanceof Promise) {
      removed.catch((error: unknown) =>
        this.options.logger.error("Failed to remove the pod's containers", { podUID: uid, error }),
      );
    }
  }

  /** The status as the runtime has it now, written to the API when it changed. */
  async reportStatus(pod: Pod, podIsTerminal: boolean): Promise<GeneratedPodStatus> {
    const generated = generatePodStatus({
      pod,
      containers: this.options.containers.containerViews(pod),
      podIsTerminal,
      hostIP: this.options.hostIP,
      nowMs: this.options.clock.now(),
    });
    await this.options.statusManager.setPodStatus(pod, generated);
    return generated;
  }

  private async makePodDataDirs(pod: Pod): Promise<void> {
    const { host, rootDir } = this.options;
    const uid = pod.metadata?.uid ?? "";
    for (const dir of [
      podDir(rootDir, uid),
      podVolumesDir(rootDir, uid),
      posix.join(podDir(rootDir, uid), podPluginsDirName),
    ]) {
      await host.mkdir(dir, podDirMode, { recursive: true });
    }
  }

  /** Polls every terminatedPodVolumeCleanupPollMs until no volume directory of the pod remains. */
  private async waitForVolumeDirsGone(pod: Pod, cancelled: SyncCancellation): Promise<void> {
    const { clock, volumeManager, logger, terminatedPodVolumeCleanupPollMs, terminatedPodVolumeCleanupTimeoutMs } =
      this.options;
    const uid = pod.metadata?.uid ?? "";
    const deadlineMs = clock.now() + terminatedPodVolumeCleanupTimeoutMs;
    for (let poll = 0; ; poll++) {
      if (cancelled.cancelled) throw new SyncCancelledError();
      if (!(await volumeManager.podVolumesExist(uid))) return;
      logger.log(poll === 0 ? "info" : "debug", "Pod is terminated, but some volumes have not been cleaned up", {
        pod: objectKey(pod),
        podUID: uid,
      });
      if (clock.now() >= deadlineMs) {
        throw new Error(`volumes of pod ${objectKey(pod)} are still present on disk after termination`);
      }
      await clock.sleep(terminatedPodVolumeCleanupPollMs);
    }
  }
}
