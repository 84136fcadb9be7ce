/**
 * `volume_mount` for a filesystem volume (spec §3.5): find the plugin, check node affinity, mount
 * options and ReadWriteOncePod, wait for the attach, mount the device once per node, set the pod's
 * volume up, then grow its filesystem if the claim grew meanwhile. Every step is idempotent (§4.6): after an uncertain result the whole operation runs
 * again. A failure becomes a `FailedMount` event on the pod and leaves the ASW as `error-state.ts`
 * says; a ReadWriteOncePod conflict is a precondition failure (retried without backoff).
 */
import { MountPreConditionFailed } from "../errors.ts";
import { isNodeExpandablePlugin, type VolumeMounter, type VolumePlugin } from "../plugin.ts";
import { checkNodeAffinity } from "../util/node-affinity.ts";
import { markDeviceErrorState, markVolumeErrorState } from "./error-state.ts";
import type { OperationFunc } from "./nested-pending-operations.ts";
import { expandVolumeDuringMount } from "./node-expand-operation.ts";
import { type OperationContext, VolumeEventReason } from "./operation-context.ts";
import { step } from "./operation-step.ts";
import { mountSubject } from "./subjects.ts";
import type { ActualStateOfWorldMounterUpdater, MarkVolumeOptions, VolumeToMount } from "./types.ts";
import { type VolumeMessageSubject, VolumeOperationError } from "./volume-messages.ts";

const readWriteOncePodInUseText = "volume uses the ReadWriteOncePod access mode and is already in use by another pod";
const mountOptionsUnsupportedText = "Mount options are not supported for this volume type";

export interface MountRequest {
  volume: VolumeToMount;
  asw: ActualStateOfWorldMounterUpdater;
  waitForAttachTimeoutMs: number;
}

/** Refusals that come before any work: node affinity, mount options, ReadWriteOncePod. */
async function checkPreconditions(
  context: OperationContext,
  request: MountRequest,
  plugin: VolumePlugin,
  subject: VolumeMessageSubject,
): Promise<void> {
  const { volume, asw } = request;
  const pv = volume.volumeSpec.persistentVolume;
  const node = context.cachedNode?.();
  if (pv !== undefined && node !== undefined) {
    await step("MountVolume.NodeAffinity check failed", subject, () => checkNodeAffinity(pv, node));
  }
  if (volume.volumeSpec.mountOptions().length > 0 && !plugin.supportsMountOption()) {
    throw new VolumeOperationError(
      "MountVolume.MountOptionSupport check failed",
      subject,
      new Error(mountOptionsUnsupportedText),
    );
  }
  const modes = volume.volumeSpec.accessModes();
  const readWriteOncePod = modes.length === 1 && modes[0] === "ReadWriteOncePod";
  if (readWriteOncePod && asw.isVolumeMountedElsewhere(volume.volumeName, volume.podName)) {
    throw new VolumeOperationError(
      "MountVolume.SetUp failed",
      subject,
      new MountPreConditionFailed(readWriteOncePodInUseText),
    );
  }
}

/** Waits for the attach (attachable plugins) and mounts the device once per node (device-mountable ones). */
async function mountDeviceIfNeeded(
  context: OperationContext,
  request: MountRequest,
  subject: VolumeMessageSubject,
): Promise<void> {
  const { volume, asw } = request;
  const spec = volume.volumeSpec;
  const attachable = context.plugins.findAttachablePluginBySpec(spec);
  let devicePath = volume.devicePath;
  if (attachable !== undefined) {
    devicePath = await step("MountVolume.WaitForAttach failed", subject, () =>
      attachable.newAttacher().waitForAttach(spec, devicePath, volume.pod, request.waitForAttachTimeoutMs),
    );
  }
  const deviceMountable = context.plugins.findDeviceMountablePluginBySpec(spec);
  if (deviceMountable === undefined) return;
  const deviceMounter = deviceMountable.newDeviceMounter();
  const deviceMountPath = await step("MountVolume.GetDeviceMountPath failed", subject, () =>
    deviceMounter.getDeviceMountPath(spec),
  );
  if (asw.getDeviceMountState(volume.volumeName) === "DeviceGloballyMounted") return;
  try {
    await deviceMounter.mountDevice(spec, devicePath, deviceMountPath, {});
  } catch (err) {
    markDeviceErrorState(asw, volume.volumeName, devicePath, deviceMountPath, err);
    throw new VolumeOperationError("MountVolume.MountDevice failed", subject, err);
  }
  context.logger.info(
    `MountVolume.MountDevice succeeded for volume "${spec.name()}" device mount path "${deviceMountPath}"`,
    {
      volume: volume.volumeName,
      pod: volume.podName,
    },
  );
  await step("MountVolume.MarkDeviceAsMounted failed", subject, () =>
    asw.markDeviceAsMounted(volume.volumeName, devicePath, deviceMountPath),
  );
}

/**
 * expandVolumeDuringMount: a claim grown while no pod used it (or while its driver could not grow
 * it in use) gets its filesystem grown now, after SetUp and before the pod may use it. A failure
 * leaves the mount uncertain, so the pod does not start and teardown still happens.
 */
async function expandAfterSetUp(
  context: OperationContext,
  request: MountRequest,
  mounter: VolumeMounter,
  options: MarkVolumeOptions,
  subject: VolumeMessageSubject,
): Promise<void> {
  const { volume, asw } = request;
  const spec = volume.volumeSpec;
  const plugin = context.plugins.findPluginBySpec(spec);
  // Only the kubelet (which has claim access) mounts; only claims of plugins that grow filesystems.
  if (context.claims === undefined || spec.persistentVolume === undefined) return;
  if (!isNodeExpandablePlugin(plugin) || !plugin.requiresFSResize()) return;
  try {
    const deviceMountable = context.plugins.findDeviceMountablePluginBySpec(spec);
    const deviceStagePath =
      deviceMountable === undefined ? "" : await deviceMountable.newDeviceMounter().getDeviceMountPath(spec);
    const resizeOptions = {
      volumeSpec: spec,
      devicePath: volume.devicePath,
      deviceMountPath: mounter.getPath(),
      deviceStagePath,
      oldSizeBytes: 0n,
      newSizeBytes: 0n,
    };
    const result = await expandVolumeDuringMount(context, { volume, plugin, asw, options: resizeOptions });
    if (result.done && result.sizeBytes > 0n) asw.markVolumeAsResized(volume.volumeName, result.sizeBytes);
  } catch (err) {
    asw.markVolumeMountAsUncertain(options);
    throw new VolumeOperationError("MountVolume.Setup failed while expanding volume", subject, err);
  }
}

async function setUp(
  context: OperationContext,
  request: MountRequest,
  mounter: VolumeMounter,
  subject: VolumeMessageSubject,
): Promise<void> {
  const { volume, asw } = request;
  const options: MarkVolumeOptions = {
    podName: volume.podName,
    podUID: volume.podName,
    volumeName: volume.volumeName,
    mounter,
    outerVolumeSpecName: volume.outerVolumeSpecName,
    volumeSpec: volume.volumeSpec,
    volumeMountState: "VolumeMounted",
    ...(volume.volumeGidValue === undefined ? {} : { volumeGidValue: volume.volumeGidValue }),
  };
  try {
    await mounter.setUp(volume.mounterArgs ?? {});
  } catch (err) {
    markVolumeErrorState(asw, options, err);
    throw new VolumeOperationError("MountVolume.SetUp failed", subject, err);
  }
  await expandAfterSetUp(context, request, mounter, options, subject);
  await step("MountVolume.MarkVolumeAsMounted failed", subject, () => asw.markVolumeAsMounted(options));
}

export function mountOperation(context: OperationContext, request: MountRequest): OperationFunc {
  const { volume } = request;
  const subject = mountSubject(volume);
  return async () => {
    try {
      const plugin = await step("MountVolume.FindPluginBySpec failed", subject, () =>
        context.plugins.findPluginBySpec(volume.volumeSpec),
      );
      await checkPreconditions(context, request, plugin, subject);
      const mounter = await step("MountVolume.NewMounter initialization failed", subject, () =>
        plugin.newMounter(volume.volumeSpec, volume.pod),
      );
      await mountDeviceIfNeeded(context, request, subject);
      await setUp(context, request, mounter, subject);
    } catch (err) {
      if (err instanceof VolumeOperationError) {
        context.recorder.event(volume.pod, "Warning", VolumeEventReason.failedMount, err.eventMessage);
      }
      throw err;
    }
  };
}
