/**
 * `volume_fs_resize` (GenerateExpandInUseVolumeFunc): a mounted claim whose PV grew gets its
 * filesystem grown while the pod runs — NodeExpandVolume with the pod's volume path and the
 * staging path. A failure is Warning `VolumeResizeFailed` on the pod, "NodeExpandVolume.NodeExpandVolume
 * failed for volume "<pv>" : <err>", retried with backoff; success records the new size in the ASW.
 */
import { isNodeExpandablePlugin, type NodeResizeOptions } from "../plugin.ts";
import type { OperationFunc } from "./nested-pending-operations.ts";
import { NodeExpandEventReason, nodeExpandVolume } from "./node-expand-operation.ts";
import type { OperationContext } from "./operation-context.ts";
import { step } from "./operation-step.ts";
import { mountSubject } from "./subjects.ts";
import type { ActualStateOfWorldMounterUpdater, VolumeToMount } from "./types.ts";
import { VolumeOperationError } from "./volume-messages.ts";

export interface ExpandInUseRequest {
  volume: VolumeToMount;
  asw: ActualStateOfWorldMounterUpdater;
  /** The size the ASW last recorded (the claim's capacity), in bytes. */
  currentSizeBytes: bigint;
}

/** The paths NodeExpandVolume needs: the pod's volume path and, for staged plugins, the staging path. */
async function resizeOptions(
  context: OperationContext,
  request: ExpandInUseRequest,
  newSizeBytes: bigint,
): Promise<NodeResizeOptions> {
  const { volume } = request;
  const spec = volume.volumeSpec;
  const subject = mountSubject(volume);
  const options: NodeResizeOptions = {
    volumeSpec: spec,
    devicePath: volume.devicePath,
    deviceMountPath: "",
    deviceStagePath: "",
    oldSizeBytes: request.currentSizeBytes,
    newSizeBytes,
  };
  if (spec.isBlock()) return options;
  const plugin = context.plugins.findPluginBySpec(spec);
  const mounter = await step("NodeExpandVolume.NewMounter initialization failed", subject, () =>
    plugin.newMounter(spec, volume.pod),
  );
  options.deviceMountPath = mounter.getPath();
  const deviceMountable = context.plugins.findDeviceMountablePluginBySpec(spec);
  if (deviceMountable !== undefined) {
    options.deviceStagePath = await step("NodeExpandVolume.GetDeviceMountPath failed", subject, () =>
      deviceMountable.newDeviceMounter().getDeviceMountPath(spec),
    );
  }
  return options;
}

async function expandInUse(context: OperationContext, request: ExpandInUseRequest): Promise<void> {
  const { volume, asw } = request;
  const subject = mountSubject(volume);
  const desired = volume.desiredPersistentVolumeSizeBytes ?? 0n;
  if (request.currentSizeBytes === 0n || desired === 0n) {
    throw new VolumeOperationError(
      "NodeExpandvolume.expansion failed",
      subject,
      new Error("current or new size of the volume is not set"),
    );
  }
  const plugin = await step("NodeExpandVolume.FindPluginBySpec failed", subject, () =>
    context.plugins.findPluginBySpec(volume.volumeSpec),
  );
  const options = await resizeOptions(context, request, desired);
  // A plugin that cannot grow filesystems (or a volume without a PV) has nothing to do.
  if (
    !isNodeExpandablePlugin(plugin) ||
    !plugin.requiresFSResize() ||
    volume.volumeSpec.persistentVolume === undefined
  ) {
    asw.markVolumeAsResized(volume.volumeName, desired);
    return;
  }
  let result: Awaited<ReturnType<typeof nodeExpandVolume>>;
  try {
    result = await nodeExpandVolume(context, { volume, plugin, asw, options });
  } catch (err) {
    throw new VolumeOperationError("NodeExpandVolume.NodeExpandVolume failed", subject, err);
  }
  if (!result.done) {
    context.logger.info("Waiting for volume to be expandable on the node", { volumeName: volume.volumeName });
    return;
  }
  if (!asw.markVolumeAsResized(volume.volumeName, result.sizeBytes)) {
    throw new VolumeOperationError(
      "NodeExpandVolume.MarkVolumeAsResized failed",
      subject,
      new Error("unable to mark volume as resized"),
    );
  }
}

export function expandInUseOperation(context: OperationContext, request: ExpandInUseRequest): OperationFunc {
  return async () => {
    try {
      await expandInUse(context, request);
    } catch (err) {
      if (err instanceof VolumeOperationError) {
        context.recorder.event(
          request.volume.pod,
          "Warning",
          NodeExpandEventReason.volumeResizeFailed,
          err.eventMessage,
        );
      }
      throw err;
    }
  };
}
