/**
 * The kubelet's half of CSI attaching (csi_attacher.go on the node). The kubelet never attaches or
 * detaches a CSI volume itself — the attach/detach controller and the external-attacher do, through
 * the VolumeAttachment — so it only checks that the attachment is done (WaitForAttach: one GET,
 * `status.attached` required, the VolumeAttachment name is the "device path") and stages the
 * volume (csi-device-mount.ts).
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import type { VolumeAttachment } from "kubernetes-types/storage/v1.js";
import { errorMessage } from "../../../runtime/error-message.ts";
import type { Attacher, Detacher, DeviceMounterArgs } from "../../plugin.ts";
import type { VolumeSpec } from "../../spec.ts";
import { volumeAttachmentBeingDeletedText, volumeAttachmentName } from "./csi-attacher.ts";
import { csiMessagePrefix } from "./csi-constants.ts";
import { csiDeviceMountPath, csiMountDevice, csiUnmountDevice } from "./csi-device-mount.ts";
import { attachmentNameOnNode, type CsiNodeContext } from "./csi-node-context.ts";
import { csiPersistentSource } from "./csi-source.ts";

const kubeletAttachRefusedText = "attaching volumes from the kubelet is not supported";
const kubeletDetachRefusedText = "detaching volumes from the kubelet is not supported";

/** What one look at the VolumeAttachment says (verifyAttachmentStatus): attached, failed, or not yet. */
function attachmentVerdict(attachment: VolumeAttachment): "attached" | "pending" {
  if (attachment.metadata?.deletionTimestamp) throw new Error(volumeAttachmentBeingDeletedText);
  if (attachment.status?.attached === true) return "attached";
  const attachError = attachment.status?.attachError?.message;
  if (attachError !== undefined) throw new Error(attachError);
  return "pending";
}

export class CsiNodeAttacher implements Attacher, Detacher {
  constructor(private readonly context: CsiNodeContext) {}

  async attach(): Promise<string> {
    throw new Error(kubeletAttachRefusedText);
  }

  async detach(): Promise<void> {
    throw new Error(kubeletDetachRefusedText);
  }

  /** One GET per volume; a volume whose VolumeAttachment cannot be read counts as not attached. */
  async volumesAreAttached(specs: readonly VolumeSpec[], nodeName: string): Promise<Map<string, boolean>> {
    const attached = new Map<string, boolean>();
    for (const spec of specs) {
      const source = spec.persistentVolume?.spec?.csi;
      if (source === undefined) continue;
      const name = volumeAttachmentName(source.volumeHandle, source.driver, nodeName);
      try {
        attached.set(spec.name(), (await this.context.api.getVolumeAttachment(name)).status?.attached === true);
      } catch (err) {
        this.context.volumeHost.logger.warning(
          `${csiMessagePrefix}failed to get VolumeAttachment ${name}: ${errorMessage(err)}`,
        );
        attached.set(spec.name(), false);
      }
    }
    return attached;
  }

  /** A single GET (the reconciler retries); resolves with the VolumeAttachment name. */
  async waitForAttach(spec: VolumeSpec, _devicePath: string, _pod: Pod, _timeoutMs: number): Promise<string> {
    const source = csiPersistentSource(spec);
    const name = attachmentNameOnNode(this.context, source.volumeHandle, source.driver);
    let attachment: VolumeAttachment;
    try {
      attachment = await this.context.api.getVolumeAttachment(name);
    } catch (err) {
      throw new Error(
        `volume ${source.volumeHandle} has GET error for volume attachment ${name}: ${errorMessage(err)}`,
        { cause: err },
      );
    }
    if (attachmentVerdict(attachment) !== "attached") {
      throw new Error(`volume ${source.volumeHandle} is not attached for volume attachment ${name}`);
    }
    return name;
  }

  async getDeviceMountPath(spec: VolumeSpec): Promise<string> {
    try {
      return csiDeviceMountPath(this.context, spec);
    } catch (err) {
      throw new Error(
        `${csiMessagePrefix}attacher.GetDeviceMountPath failed to make device mount path: ${errorMessage(err)}`,
        { cause: err },
      );
    }
  }

  mountDevice(spec: VolumeSpec, _devicePath: string, deviceMountPath: string, _args: DeviceMounterArgs): Promise<void> {
    return csiMountDevice(this.context, spec, deviceMountPath);
  }

  unmountDevice(deviceMountPath: string): Promise<void> {
    return csiUnmountDevice(this.context, deviceMountPath);
  }
}
