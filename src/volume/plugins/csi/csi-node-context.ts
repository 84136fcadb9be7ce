/**
 * What every node-side part of the CSI plugin shares: the node, the registered drivers, the API
 * reads, the layout choice — and the two lookups each operation starts with: the driver's client
 * (an unregistered driver is a transient failure: it may register any moment) and the publish
 * context from the VolumeAttachment.
 */
import { errorMessage } from "../../../runtime/error-message.ts";
import { TransientOperationFailure } from "../../errors.ts";
import type { NodeVolumeContext, VolumeHost } from "../../volume-host.ts";
import { volumeAttachmentName } from "./csi-attacher.ts";
import { csiMessagePrefix } from "./csi-constants.ts";
import { type CsiPluginApi, driverSkipsAttach } from "./csi-driver-policy.ts";
import type { CsiDriverRegistry } from "./csi-driver-registry.ts";
import { CsiNodeCalls } from "./csi-node-calls.ts";

export interface CsiNodeContext {
  readonly volumeHost: VolumeHost;
  readonly node: NodeVolumeContext;
  readonly drivers: CsiDriverRegistry;
  readonly api: CsiPluginApi;
  /** Stage filesystem volumes at the older `plugins/kubernetes.io/csi/pv/<pv>/globalmount`. */
  readonly legacyStagingPath: boolean;
}

/**
 * The client of `driverName`, or a TransientOperationFailure worded
 * `kubernetes.io/csi: <what>: driver name <d> not found in the list of registered CSI drivers`.
 */
export function driverCalls(context: CsiNodeContext, driverName: string, what: string): CsiNodeCalls {
  try {
    return new CsiNodeCalls(context.drivers.require(driverName));
  } catch (err) {
    throw new TransientOperationFailure(`${csiMessagePrefix}${what}: ${errorMessage(err)}`, { cause: err });
  }
}

/** `csi-<sha256(handle + driver + node)>` for this node. */
export function attachmentNameOnNode(context: CsiNodeContext, volumeHandle: string, driverName: string): string {
  return volumeAttachmentName(volumeHandle, driverName, context.node.nodeName);
}

/**
 * The publish context ControllerPublish returned, from the VolumeAttachment's
 * `status.attachmentMetadata`; empty for drivers that skip attaching. A failed read is the API's error.
 */
export async function publishContextOf(
  context: CsiNodeContext,
  volumeHandle: string,
  driverName: string,
): Promise<Record<string, string>> {
  if (driverSkipsAttach(context.api, driverName)) return {};
  const attachment = await context.api.getVolumeAttachment(attachmentNameOnNode(context, volumeHandle, driverName));
  return { ...attachment.status?.attachmentMetadata };
}
