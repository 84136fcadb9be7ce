/**
 * external-attacher's trivial handler, for drivers without PUBLISH_UNPUBLISH_VOLUME (or without a
 * controller service): nothing needs attaching, so every VolumeAttachment is marked attached at
 * once and no finalizer is added; deleting it needs nothing from the attacher. A finalizer left by
 * an earlier CSI handler (the driver lost the capability) is removed so the deletion can finish.
 */
import type { PersistentVolume, VolumeAttachment } from "../../api/objects.ts";
import type { AttacherState, AttachHandler } from "./attacher-state.ts";
import { hasFinalizer } from "./finalizers.ts";
import { markAsAttached, removeAttachmentFinalizer } from "./va-status-writes.ts";

export class TrivialAttachHandler implements AttachHandler {
  constructor(private readonly state: AttacherState) {}

  async syncVolumeAttachment(attachment: VolumeAttachment): Promise<void> {
    if (attachment.metadata?.deletionTimestamp) {
      if (hasFinalizer(attachment, this.state.finalizer)) {
        await removeAttachmentFinalizer(this.state, attachment.metadata.name ?? "");
      }
      return;
    }
    if (attachment.status?.attached) return;
    await markAsAttached(this.state, attachment, {});
    this.state.logger.info("marked VolumeAttachment as attached", { volumeAttachment: attachment.metadata?.name });
  }

  async syncPersistentVolume(_volume: PersistentVolume): Promise<void> {
    // The trivial handler never puts a finalizer on a PersistentVolume.
  }
}
