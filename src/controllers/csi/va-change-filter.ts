/**
 * Which VolumeAttachment updates the attacher acts on (external-attacher shouldEnqueueVAChange).
 * An update that only changes `status.attachError` or `status.detachError` is the attacher's own
 * write a moment ago; acting on it would retry at once and defeat the exponential backoff.
 * A resync (same resourceVersion) is always acted on.
 */
import type { VolumeAttachment } from "../../api/objects.ts";
import { semanticEqual } from "../../api/validation/semantic-equal.ts";

export function shouldEnqueueVaChange(oldAttachment: VolumeAttachment, newAttachment: VolumeAttachment): boolean {
  if (oldAttachment.metadata?.resourceVersion === newAttachment.metadata?.resourceVersion) return true;
  const hasErrors = (attachment: VolumeAttachment) =>
    attachment.status?.attachError != null || attachment.status?.detachError != null;
  if (!hasErrors(oldAttachment) && !hasErrors(newAttachment)) return true;
  return !semanticEqual(withoutVolatileFields(oldAttachment), withoutVolatileFields(newAttachment));
}

/** The attachment minus what the comparison ignores: resourceVersion, managedFields and the errors. */
function withoutVolatileFields(attachment: VolumeAttachment): unknown {
  const { resourceVersion: _version, managedFields: _managed, ...metadata } = attachment.metadata ?? {};
  const { attachError: _attachError, detachError: _detachError, ...status } = attachment.status ?? { attached: false };
  return { ...attachment, metadata, status };
}
