/**
 * `volume_unmount` (spec §3.6): clean the pod's subPath mounts, tear the volume down, forget the
 * pod's mount. A failed TearDown leaves the mount Uncertain (it will be tried again); no events.
 */
import type { OperationFunc } from "./nested-pending-operations.ts";
import type { OperationContext } from "./operation-context.ts";
import { step } from "./operation-step.ts";
import { mountedSubject } from "./subjects.ts";
import { cleanSubPaths } from "./subpath-cleanup.ts";
import type { ActualStateOfWorldMounterUpdater, MountedVolume } from "./types.ts";
import { VolumeOperationError } from "./volume-messages.ts";

export function unmountOperation(
  context: OperationContext,
  volume: MountedVolume,
  asw: ActualStateOfWorldMounterUpdater,
): OperationFunc {
  const subject = mountedSubject(volume);
  return async () => {
    const plugin = await step("UnmountVolume.FindPluginByName failed", subject, () =>
      context.plugins.findPluginByName(volume.pluginName),
    );
    const unmounter = await step("UnmountVolume.NewUnmounter failed", subject, () =>
      plugin.newUnmounter(volume.innerVolumeSpecName, volume.podUID),
    );
    const node = context.node;
    if (node !== undefined) {
      await step("error cleaning subPath mounts", subject, () =>
        cleanSubPaths(node, volume.podUID, volume.innerVolumeSpecName),
      );
    }
    try {
      await unmounter.tearDown();
    } catch (err) {
      asw.markVolumeMountAsUncertain({
        podName: volume.podName,
        podUID: volume.podUID,
        volumeName: volume.volumeName,
        outerVolumeSpecName: volume.outerVolumeSpecName,
        volumeSpec: volume.volumeSpec,
        volumeMountState: "VolumeMountUncertain",
      });
      throw new VolumeOperationError("UnmountVolume.TearDown failed", subject, err);
    }
    context.logger.info(`UnmountVolume.TearDown succeeded for volume "${volume.volumeName}" pod "${volume.podUID}"`);
    await step("UnmountVolume.MarkVolumeAsUnmounted failed", subject, () =>
      asw.markVolumeAsUnmounted(volume.podName, volume.volumeName),
    );
  };
}
