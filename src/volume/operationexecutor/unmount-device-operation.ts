/**
 * `unmount_device` (spec §3.6): unmount the per-node device mount once no pod uses it. Refused
 * while other mounts still reference it; a failed unmount leaves the device Uncertain; a device
 * still in use afterwards is an error. Success records the device as unmounted, after which the
 * kubelet drops the volume from its ASW (the controller detaches it).
 */
import type { NodeVolumeContext } from "../volume-host.ts";
import type { OperationFunc } from "./nested-pending-operations.ts";
import type { OperationContext } from "./operation-context.ts";
import { step } from "./operation-step.ts";
import { attachedSubject } from "./subjects.ts";
import type { ActualStateOfWorldMounterUpdater, AttachedVolume } from "./types.ts";
import { VolumeOperationError } from "./volume-messages.ts";

export const deviceStillInUseText = "the device is in use when it was no longer expected to be in use";

/**
 * Whether the device is still held open. The kernel holds a mounted block device open exclusively,
 * so a device that is still a mount source anywhere counts as in use.
 */
export async function isDeviceStillMounted(node: NodeVolumeContext | undefined, devicePath: string): Promise<boolean> {
  if (node === undefined || devicePath === "") return false;
  return (await node.host.mountInfo()).some((mount) => mount.source === devicePath);
}

export function unmountDeviceOperation(
  context: OperationContext,
  volume: AttachedVolume,
  asw: ActualStateOfWorldMounterUpdater,
): OperationFunc {
  const subject = attachedSubject(volume);
  return async () => {
    const pluginName = volume.pluginName ?? "";
    const plugin = await step("UnmountDevice.FindDeviceMountablePluginByName failed", subject, () => {
      const found = context.plugins.findDeviceMountablePluginByName(pluginName);
      if (found === undefined) throw new Error(`volume plugin ${pluginName} does not mount devices`);
      return found;
    });
    const deviceMountPath = volume.deviceMountPath ?? "";
    const refs = await step("GetDeviceMountRefs check failed", subject, () =>
      plugin.getDeviceMountRefs(deviceMountPath),
    );
    if (refs.length > 0) {
      throw new VolumeOperationError(
        "GetDeviceMountRefs check failed",
        subject,
        new Error(
          `the device mount path "${deviceMountPath}" is still mounted by other references [${refs.join(" ")}]`,
        ),
      );
    }
    try {
      await plugin.newDeviceUnmounter().unmountDevice(deviceMountPath);
    } catch (err) {
      asw.markDeviceAsUncertain(volume.volumeName, volume.devicePath, deviceMountPath);
      throw new VolumeOperationError("UnmountDevice failed", subject, err);
    }
    if (await isDeviceStillMounted(context.node, volume.devicePath)) {
      throw new VolumeOperationError("UnmountDevice failed", subject, new Error(deviceStillInUseText));
    }
    context.logger.info(
      `UnmountDevice succeeded for volume "${volume.volumeName}" device mount path "${deviceMountPath}"`,
    );
    await step("MarkDeviceAsUnmounted failed", subject, () => asw.markDeviceAsUnmounted(volume.volumeName));
  };
}
