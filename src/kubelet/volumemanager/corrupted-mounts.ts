/**
 * kvol going beyond Kubernetes (seed 003, spec §8.3): noticing that a pod's CSI mount died under
 * it — a FUSE daemon gone with its node plugin, every access answering "transport endpoint is not
 * connected" — and having it published again, without restarting the pod.
 *
 * Kubernetes' kubelet never checks: its actual state keeps saying "mounted", and only deleting the
 * pod repairs it. Here, at every pod sync (WaitForAttachAndMount: the 1 min periodic resync, a
 * failed liveness probe, a container exit), the pod path of each of the pod's mounted CSI volumes
 * is stat-ed through the Host; one whose error is a corrupted-mount errno (`isCorruptedMnt`) is
 * flagged remount-required in the actual state, so the next reconciler pass runs SetUp —
 * NodePublishVolume — again, which a driver that repairs dead targets (as fuse.csi.kvol.io does)
 * answers by serving the path afresh. The sync waits for that before it (re)starts containers, so
 * a container killed by its liveness probe comes back on the working mount; a running container
 * keeps the dead mount it started with (private propagation) until then.
 *
 * Cheap on purpose: one stat per mounted CSI volume of the synced pod, nothing else. Turn it off
 * (`VolumeManagerOptions.repairCorruptedCsiMounts: false`) to reproduce Kubernetes.
 */
import type { Host } from "../../host/host.ts";
import { isCorruptedMnt } from "../../host/mount/mount-points.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { csiPluginName } from "../../volume/paths.ts";
import type { ActualStateOfWorld } from "./cache/actual-state-of-world.ts";

/** The part of the actual state the repair reads and flags. */
export type MountedVolumesState = Pick<ActualStateOfWorld, "getMountedVolumesForPod" | "markVolumeRemountRequired">;

interface CorruptedMountRepairOptions {
  host: Host;
  asw: MountedVolumesState;
  logger: Logger;
}

/** A pod mount found dead. */
interface CorruptedMount {
  volumeName: string;
  outerVolumeSpecName: string;
  path: string;
  /** The stat error, e.g. `stat …: transport endpoint is not connected`. */
  error: string;
}

export class CorruptedMountRepair {
  constructor(private readonly options: CorruptedMountRepairOptions) {}

  /** Stats the pod's mounted CSI volumes and flags the dead ones for SetUp again; returns them. */
  async flagCorruptedMounts(podName: string): Promise<CorruptedMount[]> {
    const { host, asw, logger } = this.options;
    const found: CorruptedMount[] = [];
    for (const mounted of asw.getMountedVolumesForPod(podName)) {
      if (mounted.pluginName !== csiPluginName || mounted.mounter === undefined) continue;
      const path = mounted.mounter.getPath();
      try {
        await host.stat(path);
      } catch (err) {
        if (!isCorruptedMnt(err)) continue;
        const error = errorMessage(err);
        if (!asw.markVolumeRemountRequired(podName, mounted.volumeName)) continue;
        found.push({ volumeName: mounted.volumeName, outerVolumeSpecName: mounted.outerVolumeSpecName, path, error });
        logger.warn("Pod volume mount is corrupted, publishing it again", {
          pod: podName,
          volumeName: mounted.volumeName,
          path,
          error,
        });
      }
    }
    return found;
  }
}
