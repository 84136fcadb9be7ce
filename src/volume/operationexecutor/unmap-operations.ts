/**
 * `unmap_volume` and `unmap_device` for raw block volumes (spec §5.10). Unmap marks the pod's mapping
 * Uncertain first (a half-undone mapping must be tried again), undoes the common mapping, then the
 * plugin's per-pod publish. UnmapDevice is refused while any pod still maps the device, marks it
 * Uncertain, lets the plugin release it (CSI NodeUnstage) and removes the global map path.
 */
import { unmapBlockVolume, unmapDeviceForAllPods } from "../block/map-block-volume.ts";
import type { BlockVolumePlugin } from "../plugin.ts";
import { blockPathContext } from "./block-context.ts";
import type { OperationFunc } from "./nested-pending-operations.ts";
import type { OperationContext } from "./operation-context.ts";
import { step } from "./operation-step.ts";
import { attachedSubject, mountedSubject } from "./subjects.ts";
import type { ActualStateOfWorldMounterUpdater, AttachedVolume, MountedVolume } from "./types.ts";
import { deviceStillInUseText, isDeviceStillMounted } from "./unmount-device-operation.ts";
import { type VolumeMessageSubject, VolumeOperationError } from "./volume-messages.ts";

function mapperPlugin(context: OperationContext, pluginName: string): BlockVolumePlugin {
  const plugin = context.plugins.findMapperPluginByName(pluginName);
  if (plugin === undefined) throw new Error(`volume plugin ${pluginName} does not support raw block volumes`);
  return plugin;
}

export function unmapOperation(
  context: OperationContext,
  volume: MountedVolume,
  asw: ActualStateOfWorldMounterUpdater,
): OperationFunc {
  const subject = mountedSubject(volume);
  return async () => {
    const plugin = await step("UnmapVolume.FindMapperPluginByName failed", subject, () =>
      mapperPlugin(context, volume.pluginName),
    );
    const unmapper = await step("UnmapVolume.NewUnmapper failed", subject, () =>
      plugin.newBlockVolumeUnmapper(volume.innerVolumeSpecName, volume.podUID),
    );
    const globalMapPath = await step("UnmapVolume.GetGlobalMapPath failed", subject, () =>
      unmapper.getGlobalMapPath(volume.volumeSpec),
    );
    await step("UnmapVolume.MarkVolumeMountAsUncertain failed", subject, () =>
      asw.markVolumeMountAsUncertain({
        podName: volume.podName,
        podUID: volume.podUID,
        volumeName: volume.volumeName,
        outerVolumeSpecName: volume.outerVolumeSpecName,
        volumeSpec: volume.volumeSpec,
        volumeMountState: "VolumeMountUncertain",
      }),
    );
    const { dir, linkName } = unmapper.getPodDeviceMapPath();
    const paths = { globalMapPath, podDeviceMapPath: dir, volumeMapName: linkName, podUID: volume.podUID };
    await step("UnmapVolume.UnmapBlockVolume failed", subject, () =>
      unmapBlockVolume(blockPathContext(context, "UnmapVolume"), paths),
    );
    if (unmapper.unmapPodDevice !== undefined) {
      const unmapPodDevice = unmapper.unmapPodDevice.bind(unmapper);
      await step("UnmapVolume.UnmapPodDevice failed", subject, () => unmapPodDevice());
    }
    await step("UnmapVolume.MarkVolumeAsUnmounted failed", subject, () =>
      asw.markVolumeAsUnmounted(volume.podName, volume.volumeName),
    );
  };
}

async function releaseDevice(
  context: OperationContext,
  volume: AttachedVolume,
  asw: ActualStateOfWorldMounterUpdater,
  subject: VolumeMessageSubject,
): Promise<void> {
  const spec = volume.volumeSpec;
  if (spec === undefined)
    throw new VolumeOperationError("UnmapDevice failed", subject, new Error("the volume spec is unknown"));
  const plugin = await step("UnmapDevice.FindMapperPluginByName failed", subject, () =>
    mapperPlugin(context, volume.pluginName ?? ""),
  );
  const unmapper = plugin.newBlockVolumeUnmapper(spec.name(), "");
  const globalMapPath =
    volume.deviceMountPath ??
    (await step("UnmapDevice.GetGlobalMapPath failed", subject, () => unmapper.getGlobalMapPath(spec)));
  const tearDown = async (): Promise<void> => {
    asw.markDeviceAsUncertain(volume.volumeName, volume.devicePath, globalMapPath);
    if (unmapper.tearDownDevice === undefined) return;
    await step("UnmapDevice.TearDownDevice failed", subject, () =>
      unmapper.tearDownDevice?.(globalMapPath, volume.devicePath),
    );
  };
  await step("UnmapDevice failed", subject, () =>
    unmapDeviceForAllPods(blockPathContext(context, "UnmapDevice"), globalMapPath, volume.devicePath, tearDown),
  );
}

export function unmapDeviceOperation(
  context: OperationContext,
  volume: AttachedVolume,
  asw: ActualStateOfWorldMounterUpdater,
): OperationFunc {
  const subject = attachedSubject(volume);
  return async () => {
    await releaseDevice(context, volume, asw, subject);
    if (await isDeviceStillMounted(context.node, volume.devicePath)) {
      throw new VolumeOperationError("UnmapDevice failed", subject, new Error(deviceStillInUseText));
    }
    await step("MarkDeviceAsUnmounted failed", subject, () => asw.markDeviceAsUnmounted(volume.volumeName));
  };
}
