/**
 * What a failed mount leaves in the kubelet's ASW (spec §3.5, markDeviceErrorState /
 * markVolumeErrorState), by error class:
 * - uncertain progress while NotMounted → Uncertain, so teardown will be attempted;
 * - final while Uncertain → NotMounted, except for mounts found by reconstruction, which stay
 *   Uncertain so they are still cleaned up;
 * - transient → unchanged.
 */
import { isOperationFinishedError, isUncertainProgressError } from "../errors.ts";
import type { ActualStateOfWorldMounterUpdater, MarkVolumeOptions } from "./types.ts";

export function markDeviceErrorState(
  asw: ActualStateOfWorldMounterUpdater,
  volumeName: string,
  devicePath: string,
  deviceMountPath: string,
  err: unknown,
): void {
  const state = asw.getDeviceMountState(volumeName);
  if (isUncertainProgressError(err) && state === "DeviceNotMounted") {
    asw.markDeviceAsUncertain(volumeName, devicePath, deviceMountPath);
    return;
  }
  if (isOperationFinishedError(err) && state === "DeviceMountUncertain") {
    if (asw.isVolumeDeviceReconstructed(volumeName)) return;
    asw.markDeviceAsUnmounted(volumeName);
  }
}

export function markVolumeErrorState(
  asw: ActualStateOfWorldMounterUpdater,
  options: MarkVolumeOptions,
  err: unknown,
): void {
  const state = asw.getVolumeMountState(options.volumeName, options.podName);
  if (isUncertainProgressError(err) && state === "VolumeNotMounted") {
    asw.markVolumeMountAsUncertain({ ...options, volumeMountState: "VolumeMountUncertain" });
    return;
  }
  if (isOperationFinishedError(err) && state === "VolumeMountUncertain") {
    if (asw.isVolumeReconstructed(options.volumeName, options.podName)) return;
    asw.markVolumeAsUnmounted(options.podName, options.volumeName);
  }
}
