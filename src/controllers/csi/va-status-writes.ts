/**
 * The attacher's writes to a VolumeAttachment: status through the status subresource (attached
 * with the driver's publish context, or the last attach/detach error with its time), finalizer and
 * node-ID annotation on the object itself. Each write re-reads the object, so a write racing with
 * another component retries instead of failing.
 */
import type { VolumeAttachment } from "../../api/objects.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import type { AttacherState } from "./attacher-state.ts";
import { annVolumeAttachmentNodeId } from "./constants.ts";
import { finalizersWith, finalizersWithout, hasFinalizer } from "./finalizers.ts";

function nameOf(attachment: VolumeAttachment): string {
  return attachment.metadata?.name ?? "";
}

type VolumeAttachmentStatus = NonNullable<VolumeAttachment["status"]>;

/** Edits the attachment's status through the status subresource, on a fresh read of the object. */
function mutateStatus(
  state: AttacherState,
  name: string,
  edit: (draft: VolumeAttachment) => void,
): Promise<VolumeAttachment> {
  return state.client.volumeAttachments.mutate("", name, edit, { subresource: "status" });
}

export function markAsAttached(
  state: AttacherState,
  attachment: VolumeAttachment,
  publishContext: Readonly<Record<string, string>>,
): Promise<VolumeAttachment> {
  return mutateStatus(state, nameOf(attachment), (draft) => {
    const metadata = Object.keys(publishContext).length > 0 ? { attachmentMetadata: { ...publishContext } } : {};
    const { attachError: _cleared, attachmentMetadata: _replaced, ...rest } = draft.status ?? { attached: false };
    draft.status = { ...rest, attached: true, ...metadata };
  });
}

/** Records the last failure of one direction, stamped with the current time; `attached` is kept. */
function saveOperationError(
  state: AttacherState,
  attachment: VolumeAttachment,
  field: keyof Pick<VolumeAttachmentStatus, "attachError" | "detachError">,
  message: string,
): Promise<VolumeAttachment> {
  return mutateStatus(state, nameOf(attachment), (draft) => {
    draft.status = {
      attached: draft.status?.attached ?? false,
      ...draft.status,
      [field]: { message, time: formatRfc3339(state.clock.now()) },
    };
  });
}

export function saveAttachError(
  state: AttacherState,
  attachment: VolumeAttachment,
  message: string,
): Promise<VolumeAttachment> {
  return saveOperationError(state, attachment, "attachError", message);
}

export function saveDetachError(
  state: AttacherState,
  attachment: VolumeAttachment,
  message: string,
): Promise<VolumeAttachment> {
  return saveOperationError(state, attachment, "detachError", message);
}

/** The finalizer and the node-ID annotation, added before the driver is asked to publish. */
export function addFinalizerAndNodeId(
  state: AttacherState,
  attachment: VolumeAttachment,
  nodeId: string,
): Promise<VolumeAttachment> {
  return state.client.volumeAttachments.mutate("", nameOf(attachment), (draft) => {
    const annotations = draft.metadata?.annotations ?? {};
    if (hasFinalizer(draft, state.finalizer) && annotations[annVolumeAttachmentNodeId] === nodeId) return;
    draft.metadata = {
      ...draft.metadata,
      finalizers: finalizersWith(draft, state.finalizer),
      annotations: { ...annotations, [annVolumeAttachmentNodeId]: nodeId },
    };
  });
}

/**
 * Detached: status back to not attached, then the finalizer removed, which lets the deletion
 * finish (the object disappears and the attach/detach controller sees the detach complete).
 */
export async function markAsDetached(state: AttacherState, attachment: VolumeAttachment): Promise<void> {
  const name = nameOf(attachment);
  await mutateStatus(state, name, (draft) => {
    if (draft.status === undefined) return;
    const { detachError: _error, attachmentMetadata: _metadata, ...rest } = draft.status;
    draft.status = { ...rest, attached: false };
  });
  await removeAttachmentFinalizer(state, name);
}

export async function removeAttachmentFinalizer(state: AttacherState, name: string): Promise<void> {
  await state.client.volumeAttachments.mutate("", name, (draft) => {
    if (!hasFinalizer(draft, state.finalizer)) return;
    draft.metadata = { ...draft.metadata, finalizers: finalizersWithout(draft, state.finalizer) };
  });
}
