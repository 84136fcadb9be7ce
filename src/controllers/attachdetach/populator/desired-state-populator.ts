/**
 * The desired-state populator (spec §2.6), run every minute: it catches what event handlers missed.
 * - A pod in the DSW that is gone from the informer, terminated, or replaced by a pod of the same
 *   name with another UID loses its volumes.
 * - A volume whose plugin no longer attaches it (CSIDriver attachRequired turned false) loses all
 *   its pods.
 * - Every 3 minutes, every non-terminated pod in the informer is added again.
 * Everything is read from informer caches: a pass makes no API call.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import type { Clock } from "../../../runtime/clock.ts";
import type { Logger } from "../../../runtime/logger.ts";
import type { VolumePluginManager } from "../../../volume/plugin-manager.ts";
import type { DesiredStateOfWorld } from "../cache/desired-state-of-world.ts";
import { isPodTerminated } from "../pod-terminated.ts";
import { isAttachableVolume, type PodVolumeContext, processPodVolumes, shouldAddVolumes } from "../pod-volumes.ts";

interface PodCache {
  get(namespace: string, name: string): Pod | undefined;
  list(): Pod[];
}

interface DesiredStatePopulatorOptions {
  clock: Clock;
  logger: Logger;
  dsw: DesiredStateOfWorld;
  plugins: VolumePluginManager;
  pods: PodCache;
  podVolumes: PodVolumeContext;
  /** How often every pod is listed again (3 min). */
  fullRelistPeriodMs: number;
}

export class DesiredStatePopulator {
  /** Never listed yet: the first pass lists. */
  private lastListMs = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: DesiredStatePopulatorOptions) {}

  /** One pass (`populatorLoopFunc`). */
  pass(): void {
    this.removeDeletedPods();
    this.removeVolumesNoLongerAttachable();
    const { clock, fullRelistPeriodMs } = this.options;
    if (clock.now() - this.lastListMs < fullRelistPeriodMs) return;
    this.addActivePods();
  }

  private removeDeletedPods(): void {
    const { dsw, pods, logger } = this.options;
    for (const entry of dsw.getPodsToAdd()) {
      const current = pods.get(entry.pod.metadata?.namespace ?? "", entry.pod.metadata?.name ?? "");
      if (current !== undefined && shouldAddVolumes(current, dsw) && current.metadata?.uid === entry.podUID) continue;
      logger.info("Removing pod from dsw because it does not exist in pod informer", {
        pod: `${entry.pod.metadata?.namespace}/${entry.pod.metadata?.name}`,
        podUID: entry.podUID,
        volume: entry.volumeName,
        node: entry.nodeName,
      });
      dsw.deletePod(entry.podUID, entry.volumeName, entry.nodeName);
    }
  }

  private removeVolumesNoLongerAttachable(): void {
    const { dsw, plugins, logger } = this.options;
    for (const volume of dsw.getVolumesToAttach()) {
      if (isAttachableVolume(plugins, volume.volumeSpec)) continue;
      logger.info("Volume changes from attachable to non-attachable", { volume: volume.volumeName });
      for (const pod of volume.scheduledPods)
        dsw.deletePod(pod.metadata?.uid ?? "", volume.volumeName, volume.nodeName);
    }
  }

  private addActivePods(): void {
    this.lastListMs = this.options.clock.now();
    for (const pod of this.options.pods.list()) {
      if (isPodTerminated(pod)) continue;
      processPodVolumes(pod, true, this.options.podVolumes);
    }
  }
}
