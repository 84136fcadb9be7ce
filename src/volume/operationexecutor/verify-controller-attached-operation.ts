/**
 * `verify_controller_attached_volume` (spec §3.4, §3.9): the kubelet's side of controller-managed
 * attach. A volume that needs no attach is recorded as attached at once. An attachable one must
 * first be reported in `node.status.volumesInUse` (so the controller will not detach it behind the
 * kubelet's back), then appear in the live Node's `status.volumesAttached`, whose device path the
 * kubelet records.
 */
import { goQuote } from "../../runtime/go-quote.ts";
import type { OperationFunc } from "./nested-pending-operations.ts";
import type { OperationContext } from "./operation-context.ts";
import { mountSubject } from "./subjects.ts";
import type { ActualStateOfWorldAttacherUpdater, VolumeToMount } from "./types.ts";
import { VolumeOperationError } from "./volume-messages.ts";

/**
 * The cheap check against the kubelet's cached Node, made before an operation is started so a
 * volume the controller has not attached yet costs neither an API call nor a backoff step.
 * Returns the refusal, or undefined when the cache lists the volume (or there is no cache).
 */
export function notYetInNodeStatus(context: OperationContext, volume: VolumeToMount): Error | undefined {
  if (!volume.pluginIsAttachable || !volume.reportedInUse || context.cachedNode === undefined) return undefined;
  const attached = context.cachedNode()?.status?.volumesAttached ?? [];
  if (attached.some((entry) => entry.name === volume.volumeName)) return undefined;
  return new Error(`volume ${volume.volumeName} is not yet in node's status`);
}

export function verifyControllerAttachedVolumeOperation(
  context: OperationContext,
  volume: VolumeToMount,
  nodeName: string,
  asw: ActualStateOfWorldAttacherUpdater,
): OperationFunc {
  const subject = mountSubject(volume);
  const markAttached = (devicePath: string): void => {
    try {
      asw.markVolumeAsAttached(volume.volumeName, volume.volumeSpec, nodeName, devicePath);
    } catch (err) {
      throw new VolumeOperationError("VerifyControllerAttachedVolume.MarkVolumeAsAttached failed", subject, err);
    }
  };
  return async () => {
    if (!volume.pluginIsAttachable) {
      markAttached("");
      return;
    }
    if (!volume.reportedInUse) {
      throw new VolumeOperationError(
        "Volume has not been added to the list of VolumesInUse in the node's volume status",
        subject,
        undefined,
      );
    }
    let node: Awaited<ReturnType<OperationContext["nodes"]["get"]>>;
    try {
      node = await context.nodes.get("", nodeName);
    } catch (err) {
      throw new VolumeOperationError(
        "VerifyControllerAttachedVolume failed fetching node from API server",
        subject,
        err,
      );
    }
    const entry = node.status?.volumesAttached?.find((attached) => attached.name === volume.volumeName);
    if (entry === undefined) {
      throw new VolumeOperationError("Volume not attached according to node status", subject, undefined);
    }
    context.logger.info(
      `Controller attach succeeded for volume ${goQuote(volume.volumeName)} device path ${goQuote(entry.devicePath)}`,
    );
    markAttached(entry.devicePath);
  };
}
