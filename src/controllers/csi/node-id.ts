/**
 * The driver's ID for a Kubernetes node (external-attacher getNodeID): the one the node's CSINode
 * lists for the driver, which the kubelet recorded from NodeGetInfo at registration. For a detach
 * after the node (and its CSINode) is gone, the ID the attacher saved on the VolumeAttachment.
 */
import type { Lister } from "../../api/informer/lister.ts";
import type { CSINode, VolumeAttachment } from "../../api/objects.ts";
import { goQuote } from "../../runtime/go-quote.ts";
import { annVolumeAttachmentNodeId } from "./constants.ts";

export function nodeIdFor(
  csiNodes: Lister<CSINode>,
  driverName: string,
  nodeName: string,
  attachment?: VolumeAttachment,
): string {
  const csiNode = csiNodes.get("", nodeName);
  const fromCsiNode = csiNode?.spec.drivers.find((driver) => driver.name === driverName)?.nodeID;
  if (fromCsiNode) return fromCsiNode;
  const saved = attachment?.metadata?.annotations?.[annVolumeAttachmentNodeId];
  if (saved) return saved;
  if (csiNode === undefined) {
    throw new Error(
      `csinode.storage.k8s.io ${goQuote(nodeName)} not found: ` +
        `the CSI driver ${driverName} has not registered on node ${nodeName} yet`,
    );
  }
  throw new Error(`CSINode ${nodeName} does not contain driver ${driverName}`);
}
