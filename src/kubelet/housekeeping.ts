/**
 * The kubelet's housekeeping pass (kubelet_pods.go HandlePodCleanups), every 2 s once the pod
 * source is synced:
 * - pod workers that finished a pod which has left the API are forgotten;
 * - containers still running for pods the kubelet does not know (deleted while it was down) are
 *   stopped, through a worker of their own so their volumes are torn down the usual way; exited
 *   ones of such pods are removed (the container garbage collector's part);
 * - pod directories of unknown pods are removed once their volumes are gone (the volume manager's
 *   cleanupOrphanedPodDirs); what prevents it is logged once per distinct problem.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { splitObjectKey } from "../api/objects.ts";
import type { Logger } from "../runtime/logger.ts";
import type { KubeletContainerRuntime } from "./container/container-runtime.ts";
import type { BoundPodManager } from "./pod/pod-manager.ts";
import type { PodWorkers } from "./pod/pod-workers.ts";

/** The volume manager's orphaned pod directory cleanup: returns the problems met, one sentence each. */
interface OrphanedPodDirCleaner {
  cleanupOrphanedPodDirs(knownPodUIDs: ReadonlySet<string>): Promise<string[]>;
}

interface HousekeepingOptions {
  logger: Logger;
  podManager: BoundPodManager;
  podWorkers: PodWorkers;
  runtime: KubeletContainerRuntime;
  volumes: OrphanedPodDirCleaner;
}

/** Distinct problems remembered so each is logged once; far above what a node ever has at a time. */
const maxReportedProblems = 10_000;

/** A stand-in pod for containers whose pod object is gone: enough to stop them and tear down. */
function orphanPod(uid: string, podKey: string): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { uid, ...splitObjectKey(podKey) },
    spec: { containers: [] },
  };
}

export class Housekeeping {
  private readonly reported = new Set<string>();

  constructor(private readonly options: HousekeepingOptions) {}

  async run(): Promise<void> {
    this.options.podWorkers.forgetFinished();
    this.stopOrphanedContainers();
    await this.cleanupOrphanedPodDirs();
  }

  private stopOrphanedContainers(): void {
    const { runtime, podWorkers, logger } = this.options;
    const known = new Set(podWorkers.knownUIDs());
    for (const uid of runtime.podUIDs()) {
      if (known.has(uid) || runtime.isPodRunning(uid)) continue;
      // Exited containers of a pod that is gone (found in the runtime after a restart): collected.
      const removed = runtime.removePod(uid);
      if (removed instanceof Promise) {
        removed.catch((error: unknown) =>
          logger.error("Failed to remove the containers of a pod that is no longer known", { podUID: uid, error }),
        );
      }
    }
    for (const uid of runtime.runningPodUIDs()) {
      if (known.has(uid)) continue;
      const podKey = runtime.containersOf(uid)[0]?.podKey ?? "/";
      logger.info("Stopping the containers of a pod that is no longer known", { podUID: uid, pod: podKey });
      podWorkers.podRemoved(orphanPod(uid, podKey));
    }
  }

  private async cleanupOrphanedPodDirs(): Promise<void> {
    const { podManager, podWorkers, runtime, volumes, logger } = this.options;
    const known = new Set<string>([
      ...podManager.getPods().map((pod) => pod.metadata?.uid ?? ""),
      ...podWorkers.knownUIDs(),
      ...runtime.runningPodUIDs(),
    ]);
    const problems = await volumes.cleanupOrphanedPodDirs(known);
    for (const problem of problems) {
      if (this.reported.has(problem)) continue;
      if (this.reported.size >= maxReportedProblems) this.reported.clear();
      this.reported.add(problem);
      logger.error(problem);
    }
  }
}
