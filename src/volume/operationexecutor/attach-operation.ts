/**
 * `volume_attach` (spec §2.9): attach through the plugin. An error leaves the volume Uncertain on
 * the node (it may be attached; it is not reported in the node status) and is told to every pod
 * scheduled there; success is told to the same pods, then recorded as attached with its device path.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import type { OperationFunc } from "./nested-pending-operations.ts";
import { type OperationContext, VolumeEventReason } from "./operation-context.ts";
import type { ActualStateOfWorldAttacherUpdater, VolumeToAttach } from "./types.ts";
import {
  attachDetails,
  simpleVolumeMessage,
  type VolumeMessageSubject,
  VolumeOperationError,
} from "./volume-messages.ts";

function subjectOf(volume: VolumeToAttach): VolumeMessageSubject {
  return { specName: volume.volumeSpec.name(), details: attachDetails(volume.volumeName, volume.nodeName) };
}

function tellPods(
  context: OperationContext,
  pods: readonly Pod[],
  type: "Normal" | "Warning",
  reason: string,
  message: string,
): void {
  for (const pod of pods) context.recorder.event(pod, type, reason, message);
}

export function attachOperation(
  context: OperationContext,
  volume: VolumeToAttach,
  asw: ActualStateOfWorldAttacherUpdater,
): OperationFunc {
  const subject = subjectOf(volume);
  return async () => {
    const plugin = context.plugins.findAttachablePluginBySpec(volume.volumeSpec);
    if (plugin === undefined) {
      throw new VolumeOperationError(
        "AttachVolume.FindAttachablePluginBySpec failed",
        subject,
        new Error("no attachable volume plugin matched"),
      );
    }
    let devicePath: string;
    try {
      devicePath = await plugin.newAttacher().attach(volume.volumeSpec, volume.nodeName);
    } catch (err) {
      asw.markVolumeAsUncertain(volume.volumeName, volume.volumeSpec, volume.nodeName);
      const failure = new VolumeOperationError("AttachVolume.Attach failed", subject, err);
      tellPods(context, volume.scheduledPods, "Warning", VolumeEventReason.failedAttachVolume, failure.eventMessage);
      throw failure;
    }
    context.logger.info(`AttachVolume.Attach succeeded for volume ${volume.volumeName} to node ${volume.nodeName}`, {
      volume: volume.volumeName,
      node: volume.nodeName,
      devicePath,
    });
    const success = simpleVolumeMessage("AttachVolume.Attach succeeded", subject, "");
    tellPods(context, volume.scheduledPods, "Normal", VolumeEventReason.successfulAttachVolume, success);
    try {
      asw.markVolumeAsAttached(volume.volumeName, volume.volumeSpec, volume.nodeName, devicePath);
    } catch (err) {
      throw new VolumeOperationError("AttachVolume.MarkVolumeAsAttached failed", subject, err);
    }
  };
}
