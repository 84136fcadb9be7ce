/**
 * The Multi-Attach refusal told to the pods waiting for an RWO/RWOP volume that is attached
 * elsewhere (spec §2.8). Each waiting pod gets its own message, naming only the blocking pods of
 * its own namespace and counting the others:
 *
 *   Multi-Attach error for volume "<pv>" Volume is already used by pod(s) <a>, <b>
 *   Multi-Attach error for volume "<pv>" Volume is already used by pod(s) <a> and <n> pod(s) in different namespaces
 *   Multi-Attach error for volume "<pv>" Volume is already used by <n> pod(s) in different namespaces
 *   Multi-Attach error for volume "<pv>" Volume is already exclusively attached to one node and can't be attached to another
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import type { VolumeToAttach } from "../../../volume/operationexecutor/types.ts";
import { simpleVolumeMessage } from "../../../volume/operationexecutor/volume-messages.ts";
import { multiAttachErrorPrefix, multiAttachExclusivelyAttachedText } from "../constants.ts";

/** What the message says about the pods that block the volume, as `receiver`'s namespace may see it. */
function blockingPodsText(receiver: Pod, blockingPods: readonly Pod[]): string {
  if (blockingPods.length === 0) return multiAttachExclusivelyAttachedText;
  const namespace = receiver.metadata?.namespace;
  const localNames = blockingPods
    .filter((pod) => pod.metadata?.namespace === namespace)
    .map((pod) => pod.metadata?.name);
  const otherCount = blockingPods.length - localNames.length;
  if (localNames.length === 0) return `Volume is already used by ${otherCount} pod(s) in different namespaces`;
  const local = `Volume is already used by pod(s) ${localNames.join(", ")}`;
  return otherCount > 0 ? `${local} and ${otherCount} pod(s) in different namespaces` : local;
}

/** The message for each pod scheduled to the blocked node. */
export function multiAttachMessages(
  volume: VolumeToAttach,
  blockingPods: readonly Pod[],
): Array<{ pod: Pod; message: string }> {
  const subject = { specName: volume.volumeSpec.name(), details: "" };
  return volume.scheduledPods.map((pod) => ({
    pod,
    message: simpleVolumeMessage(multiAttachErrorPrefix, subject, blockingPodsText(pod, blockingPods)),
  }));
}
