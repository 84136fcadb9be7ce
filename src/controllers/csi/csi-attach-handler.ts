/**
 * external-attacher's CSI handler (csi_handler.go) for drivers with PUBLISH_UNPUBLISH_VOLUME:
 *
 * - attach (no deletionTimestamp, not yet attached): refuse a PV that is being deleted, put the
 *   attacher's finalizer on the PV, resolve the node's driver ID, put the finalizer and the
 *   node-ID annotation on the VolumeAttachment, then ControllerPublishVolume; success writes
 *   `status.attached=true` with the publish context as `attachmentMetadata`, failure writes
 *   `status.attachError` and retries with backoff;
 * - detach (deletionTimestamp, finalizer still there): ControllerUnpublishVolume, then status
 *   back to detached and the finalizer removed; failure writes `status.detachError`;
 * - PV being deleted: the attacher's PV finalizer goes once no VolumeAttachment uses the PV.
 */
import type { CSIPersistentVolumeSource, PersistentVolumeSpec } from "kubernetes-types/core/v1.js";
import { volumeAttachmentsByPersistentVolume } from "../../api/informer/indexes.ts";
import type { PersistentVolume, VolumeAttachment } from "../../api/objects.ts";
import type { VolumeCapability } from "../../csi/proto/types.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { goQuote } from "../../runtime/go-quote.ts";
import type { AttacherState, AttachHandler } from "./attacher-state.ts";
import { callWithTimeout } from "./driver-connection.ts";
import { finalizersWith, finalizersWithout, hasFinalizer } from "./finalizers.ts";
import { nodeIdFor } from "./node-id.ts";
import { readSecretData } from "./secret-data.ts";
import {
  addFinalizerAndNodeId,
  markAsAttached,
  markAsDetached,
  saveAttachError,
  saveDetachError,
} from "./va-status-writes.ts";
import { capabilityForVolume } from "./volume-capability.ts";

/** What the driver is told about the volume, from its PV or inline spec. */
interface PublishTarget {
  spec: PersistentVolumeSpec;
  csi: CSIPersistentVolumeSource;
}

export class CsiAttachHandler implements AttachHandler {
  constructor(private readonly state: AttacherState) {}

  async syncVolumeAttachment(attachment: VolumeAttachment): Promise<void> {
    if (attachment.metadata?.deletionTimestamp) await this.syncDetach(attachment);
    else await this.syncAttach(attachment);
  }

  async syncPersistentVolume(volume: PersistentVolume): Promise<void> {
    if (!volume.metadata?.deletionTimestamp || !hasFinalizer(volume, this.state.finalizer)) return;
    const name = volume.metadata?.name ?? "";
    if (this.state.attachments.byIndex(volumeAttachmentsByPersistentVolume.name, name).length > 0) return;
    await this.state.client.persistentVolumes.mutate("", name, (draft) => {
      if (!hasFinalizer(draft, this.state.finalizer)) return;
      draft.metadata = { ...draft.metadata, finalizers: finalizersWithout(draft, this.state.finalizer) };
    });
    this.state.logger.info("removed the attacher finalizer from the PersistentVolume", { pv: name });
  }

  private async syncAttach(attachment: VolumeAttachment): Promise<void> {
    if (attachment.status?.attached) return;
    let publishContext: Record<string, string>;
    try {
      publishContext = await this.publish(attachment);
    } catch (error) {
      await this.saveError(() => saveAttachError(this.state, attachment, errorMessage(error)), attachment);
      throw new Error(`failed to attach: ${errorMessage(error)}`);
    }
    this.state.logger.info("attached", { volumeAttachment: attachment.metadata?.name });
    try {
      await markAsAttached(this.state, attachment, publishContext);
    } catch (error) {
      throw new Error(`failed to mark as attached: ${errorMessage(error)}`);
    }
  }

  private async syncDetach(attachment: VolumeAttachment): Promise<void> {
    if (!hasFinalizer(attachment, this.state.finalizer)) return;
    try {
      await this.unpublish(attachment);
    } catch (error) {
      await this.saveError(() => saveDetachError(this.state, attachment, errorMessage(error)), attachment);
      throw new Error(`failed to detach: ${errorMessage(error)}`);
    }
    this.state.logger.info("detached", { volumeAttachment: attachment.metadata?.name });
  }

  /** csiAttach: everything that can be checked is checked before the finalizer blocks deletion. */
  private async publish(attachment: VolumeAttachment): Promise<Record<string, string>> {
    const target = await this.targetForAttach(attachment);
    const secrets = await this.publishSecrets(target.csi);
    const volumeCapability: VolumeCapability = capabilityForVolume(target.spec, this.state.singleNodeMultiWriter);
    const nodeName = attachment.spec?.nodeName ?? "";
    const nodeId = nodeIdFor(this.state.csiNodes, this.state.driverName, nodeName);
    try {
      await addFinalizerAndNodeId(this.state, attachment, nodeId);
    } catch (error) {
      throw new Error(`could not add VolumeAttachment finalizer: ${errorMessage(error)}`);
    }
    const response = await callWithTimeout(this.state.clock, this.state.callTimeoutMs, () =>
      this.state.driver.controllerPublishVolume({
        volumeId: target.csi.volumeHandle,
        nodeId,
        volumeCapability,
        readonly: this.state.publishReadOnly && target.csi.readOnly === true,
        secrets,
        volumeContext: { ...target.csi.volumeAttributes },
      }),
    );
    return response.publishContext;
  }

  private async unpublish(attachment: VolumeAttachment): Promise<void> {
    const target = this.target(attachment);
    const secrets = await this.publishSecrets(target.csi);
    const nodeId = nodeIdFor(this.state.csiNodes, this.state.driverName, attachment.spec?.nodeName ?? "", attachment);
    await callWithTimeout(this.state.clock, this.state.callTimeoutMs, () =>
      this.state.driver.controllerUnpublishVolume({ volumeId: target.csi.volumeHandle, nodeId, secrets }),
    );
    try {
      await markAsDetached(this.state, attachment);
    } catch (error) {
      throw new Error(`could not mark as detached: ${errorMessage(error)}`);
    }
  }

  /** The target of an attach; for a PV, the PV must not be being deleted and gets the finalizer first. */
  private async targetForAttach(attachment: VolumeAttachment): Promise<PublishTarget> {
    const target = this.target(attachment);
    const pvName = attachment.spec?.source?.persistentVolumeName;
    if (pvName) await this.addVolumeFinalizer(pvName);
    return target;
  }

  private target(attachment: VolumeAttachment): PublishTarget {
    const source = attachment.spec?.source;
    if (source?.persistentVolumeName && source.inlineVolumeSpec) {
      throw new Error("both InlineCSIVolumeSource and PersistentVolumeName specified in VA source");
    }
    if (source?.inlineVolumeSpec) return targetOf(source.inlineVolumeSpec, "the inline volume spec");
    if (!source?.persistentVolumeName) {
      throw new Error("neither InlineCSIVolumeSource nor PersistentVolumeName specified in VA source");
    }
    const pvName = source.persistentVolumeName;
    const volume = this.state.volumes.get("", pvName);
    if (volume === undefined) throw new Error(`persistentvolume ${goQuote(pvName)} not found`);
    if (volume.metadata?.deletionTimestamp && !attachment.metadata?.deletionTimestamp) {
      throw new Error(`PersistentVolume ${goQuote(pvName)} is marked for deletion`);
    }
    return targetOf(volume.spec ?? {}, `persistentvolume ${pvName}`);
  }

  private async addVolumeFinalizer(pvName: string): Promise<void> {
    const cached = this.state.volumes.get("", pvName);
    if (cached !== undefined && hasFinalizer(cached, this.state.finalizer)) return;
    try {
      await this.state.client.persistentVolumes.mutate("", pvName, (draft) => {
        if (draft.metadata?.deletionTimestamp)
          throw new Error(`PersistentVolume ${goQuote(pvName)} is marked for deletion`);
        if (hasFinalizer(draft, this.state.finalizer)) return;
        draft.metadata = { ...draft.metadata, finalizers: finalizersWith(draft, this.state.finalizer) };
      });
    } catch (error) {
      throw new Error(`could not add PersistentVolume finalizer: ${errorMessage(error)}`);
    }
  }

  /** The PV's controllerPublishSecretRef, read and decoded. */
  private async publishSecrets(csi: CSIPersistentVolumeSource): Promise<Record<string, string>> {
    const reference = csi.controllerPublishSecretRef;
    if (reference === undefined) return {};
    const namespace = reference.namespace ?? "";
    const name = reference.name ?? "";
    try {
      return await readSecretData(this.state.client, { namespace, name });
    } catch (error) {
      throw new Error(`failed to load secret ${namespace}/${name}: ${errorMessage(error)}`);
    }
  }

  /** A status write that fails is logged: the operation's own error is what matters. */
  private async saveError(write: () => Promise<unknown>, attachment: VolumeAttachment): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.state.logger.info("failed to save the error on the VolumeAttachment", {
        volumeAttachment: attachment.metadata?.name,
        error: errorMessage(error),
      });
    }
  }
}

function targetOf(spec: PersistentVolumeSpec, what: string): PublishTarget {
  if (spec.csi === undefined) throw new Error(`${what} is not a CSI volume (spec.csi is not set)`);
  return { spec, csi: spec.csi };
}
