/** The columns of `kubectl get volumeattachments`: attacher, persistent volume, node, attached. */
import type { VolumeAttachment } from "../objects.ts";
import { ageSince } from "./human-duration.ts";
import { ageColumn, column, nameColumn, type ObjectPrinter } from "./table-types.ts";

const columns = [
  nameColumn,
  column("Attacher", "Attacher indicates the name of the volume driver that MUST handle this request.", {
    format: "name",
  }),
  column("PV", "Name of the persistent volume to attach."),
  column("Node", "The node that the volume should be attached to."),
  column("Attached", "Indicates the volume is successfully attached.", { type: "boolean" }),
  ageColumn,
];

export const volumeAttachmentPrinter: ObjectPrinter<VolumeAttachment> = {
  columns,
  row(attachment, nowMs) {
    return {
      cells: [
        attachment.metadata?.name ?? "",
        attachment.spec.attacher,
        attachment.spec.source.persistentVolumeName ?? "",
        attachment.spec.nodeName,
        attachment.status?.attached ?? false,
        ageSince(attachment.metadata?.creationTimestamp, nowMs),
      ],
    };
  },
};
