/**
 * Pod workers (pkg/kubelet/pod_workers.go): one worker per pod, which runs the pod's syncs one at a
 * time, through the lifecycle
 *
 *   syncing ──(deleted, removed from the API, or finished for good)──▶ terminating
 *           ──(containers stopped)──▶ terminated ──(volumes gone)──▶ finished
 *
 * A failed sync is retried after `podSyncErrorBackoffMs` (+ up to 50% jitter); a successful one is
 * repeated every `kubeletSyncFrequencyMs` (+ jitter), which is what refreshes secret and configMap
 * volumes. When termination is requested while a sync is waiting for volumes, that wait is
 * abandoned (Kubernetes cancels the sync's context) so the pod does not wait 2 min 3 s to stop.
 */

import type { Pod } from "kubernetes-types/core/v1.js";
import { objectKey } from "../../api/objects.ts";
import { defaultPodTerminationGracePeriodSeconds } from "../../api/store/constants.ts";
import type { Clock, Timer } from "../../runtime/clock.ts";
import { msPerSecond } from "../../runtime/duration.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Rng } from "../../runtime/rng.ts";
import { podResyncJitterFactor, podSyncErrorBackoffJitterFactor, podSyncErrorBackoffMs } from "../constants.ts";
import type { PodStateProvider } from "../volumemanager/pod-sources.ts";
import { SyncCancellation } from "./sync-cancellation.ts";

type PodWorkerState = "syncing" | "terminating" | "terminated" | "finished";

/** The outcome of one syncPod: keep running, or the pod's containers are done for good. */
export type SyncPodOutcome = "running" | "terminal";

/** What the workers call; the kubelet implements it (kubelet.go SyncPod / SyncTerminatingPod / SyncTerminatedPod). */
export interface PodSyncHandler {
  syncPod(pod: Pod, cancelled: SyncCancellation): Promise<SyncPodOutcome>;
  syncTerminatingPod(pod: Pod, gracePeriodMs: number): Promise<void>;
  syncTerminatedPod(pod: Pod, cancelled: SyncCancellation): Promise<void>;
  /** The pod is finished; if it is still in the API marked for deletion, send the final delete. */
  syncFinishedPod(pod: Pod, removedFromApi: boolean): Promise<void>;
  /** The worker is gone for good (the pod left the API and finished): forget what is kept for it. */
  podForgotten(uid: string): void;
}

interface PodWorkersOptions {
  clock: Clock;
  rng: Rng;
  logger: Logger;
  handler: PodSyncHandler;
  resyncIntervalMs: number;
}

interface PodWorker {
  readonly uid: string;
  pod: Pod;
  state: PodWorkerState;
  removedFromApi: boolean;
  /** A sync was requested while the worker was busy or idle; the loop runs it next. */
  pending: boolean;
  running: boolean;
  timer?: Timer;
  timerDueMs?: number;
  cancellation?: SyncCancellation;
}

function isTerminalPhase(pod: Pod): boolean {
  return pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";
}

/** The grace period the containers get: the deletion's, else the pod's, else 30 s. */
export function terminationGracePeriodMs(pod: Pod): number {
  const seconds =
    pod.metadata?.deletionGracePeriodSeconds ??
    pod.spec?.terminationGracePeriodSeconds ??
    defaultPodTerminationGracePeriodSeconds;
  return Math.max(0, seconds) * msPerSecond;
}

export class PodWorkers implements PodStateProvider {
  private readonly workers = new Map<string, PodWorker>();
  private readonly changeListeners: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly options: PodWorkersOptions) {}

  /** Calls `listener` after every change of a pod's lifecycle state (the volume populator parks until one). */
  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  /**
   * A pod was added or changed in the API. A change of its status alone (the kubelet's own writes
   * coming back) only refreshes the worker's copy: like the kubelet's pod config, it is a reconcile,
   * not a reason to sync again.
   */
  updatePod(pod: Pod, statusOnly = false): void {
    const uid = pod.metadata?.uid;
    if (!uid || this.stopped) return;
    const existing = this.workers.get(uid);
    if (existing !== undefined && statusOnly) {
      existing.pod = pod;
      return;
    }
    const worker = existing ?? this.newWorker(uid, pod);
    worker.pod = pod;
    this.requestTerminationIfDue(worker);
    this.schedule(worker);
  }

  /** The pod left the API (its final delete happened, or it was force-deleted). */
  podRemoved(pod: Pod): void {
    const uid = pod.metadata?.uid;
    if (!uid || this.stopped) return;
    const worker = this.workers.get(uid) ?? this.newWorker(uid, pod);
    worker.removedFromApi = true;
    this.requestTerminationIfDue(worker);
    this.schedule(worker);
  }

  /** Runs the pod's sync again now (a container exited, a probe failed). */
  requestSync(uid: string): void {
    const worker = this.workers.get(uid);
    if (worker !== undefined && !this.stopped) this.schedule(worker);
  }

  /** Runs the pod's sync again after `delayMs` (end of a container restart back-off). */
  requestSyncAfter(uid: string, delayMs: number): void {
    const worker = this.workers.get(uid);
    if (worker !== undefined && !this.stopped) this.scheduleAfter(worker, delayMs);
  }

  /** Known pods, for housekeeping. */
  knownUIDs(): string[] {
    return [...this.workers.keys()];
  }

  stateOf(uid: string): PodWorkerState | undefined {
    return this.workers.get(uid)?.state;
  }

  shouldPodContainersBeTerminating(uid: string): boolean {
    const state = this.workers.get(uid)?.state;
    return state !== undefined && state !== "syncing";
  }

  shouldPodRuntimeBeRemoved(uid: string): boolean {
    const state = this.workers.get(uid)?.state;
    return state === undefined || state === "terminated" || state === "finished";
  }

  /** Forgets finished workers whose pod left the API (SyncKnownPods). */
  forgetFinished(): void {
    for (const worker of [...this.workers.values()]) {
      if (worker.state === "finished" && worker.removedFromApi && !worker.running) {
        worker.timer?.cancel();
        this.workers.delete(worker.uid);
        this.notifyChange();
        this.options.handler.podForgotten(worker.uid);
      }
    }
  }

  /** The kubelet stops: no sync starts any more, and waits in progress are abandoned. */
  stop(): void {
    this.stopped = true;
    for (const worker of this.workers.values()) {
      worker.timer?.cancel();
      worker.cancellation?.cancel();
    }
  }

  private newWorker(uid: string, pod: Pod): PodWorker {
    const worker: PodWorker = { uid, pod, state: "syncing", removedFromApi: false, pending: false, running: false };
    this.workers.set(uid, worker);
    this.notifyChange();
    return worker;
  }

  private setState(worker: PodWorker, state: PodWorkerState): void {
    worker.state = state;
    this.notifyChange();
  }

  private notifyChange(): void {
    for (const listener of this.changeListeners) listener();
  }

  private requestTerminationIfDue(worker: PodWorker): void {
    if (worker.state !== "syncing") return;
    if (worker.removedFromApi || worker.pod.metadata?.deletionTimestamp || isTerminalPhase(worker.pod)) {
      this.setState(worker, "terminating");
      worker.cancellation?.cancel();
    }
  }

  private schedule(worker: PodWorker): void {
    worker.timer?.cancel();
    worker.timer = undefined;
    worker.timerDueMs = undefined;
    worker.pending = true;
    if (!worker.running) void this.work(worker);
  }

  /** Syncs the pod after `delayMs`, unless a sync is already planned sooner (the earlier one wins). */
  private scheduleAfter(worker: PodWorker, delayMs: number): void {
    const dueMs = this.options.clock.now() + delayMs;
    if (worker.timer !== undefined && worker.timerDueMs !== undefined && worker.timerDueMs <= dueMs) return;
    worker.timer?.cancel();
    worker.timerDueMs = dueMs;
    worker.timer = this.options.clock.setTimer(delayMs, () => {
      worker.timer = undefined;
      worker.timerDueMs = undefined;
      this.schedule(worker);
    });
  }

  private jittered(baseMs: number, factor: number): number {
    return baseMs + this.options.rng.next() * factor * baseMs;
  }

  private async work(worker: PodWorker): Promise<void> {
    worker.running = true;
    try {
      while (worker.pending && !this.stopped) {
        worker.pending = false;
        try {
          await this.step(worker);
        } catch (error) {
          if (this.stopped) return;
          this.options.logger.error("Error syncing pod, skipping", {
            pod: objectKey(worker.pod),
            podUID: worker.uid,
            state: worker.state,
            error,
          });
          if (!worker.pending)
            this.scheduleAfter(worker, this.jittered(podSyncErrorBackoffMs, podSyncErrorBackoffJitterFactor));
        }
      }
    } finally {
      worker.running = false;
    }
  }

  private async step(worker: PodWorker): Promise<void> {
    const { handler } = this.options;
    switch (worker.state) {
      case "syncing": {
        const cancellation = new SyncCancellation();
        worker.cancellation = cancellation;
        const outcome = await handler.syncPod(worker.pod, cancellation);
        worker.cancellation = undefined;
        if (cancellation.cancelled || worker.state !== "syncing") {
          worker.pending = true;
          return;
        }
        if (outcome === "terminal") {
          this.setState(worker, "terminating");
          worker.pending = true;
          return;
        }
        if (!worker.pending)
          this.scheduleAfter(worker, this.jittered(this.options.resyncIntervalMs, podResyncJitterFactor));
        return;
      }
      case "terminating":
        await handler.syncTerminatingPod(worker.pod, terminationGracePeriodMs(worker.pod));
        this.setState(worker, "terminated");
        worker.pending = true;
        return;
      case "terminated": {
        const cancellation = new SyncCancellation();
        worker.cancellation = cancellation;
        await handler.syncTerminatedPod(worker.pod, cancellation);
        worker.cancellation = undefined;
        this.setState(worker, "finished");
        worker.pending = true;
        return;
      }
      case "finished":
        await handler.syncFinishedPod(worker.pod, worker.removedFromApi);
        return;
    }
  }
}
