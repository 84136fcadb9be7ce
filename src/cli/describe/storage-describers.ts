/**
 * `kvol describe pvc`, `pv` and `volumeattachment`, laid out as kubectl does, each with its events.
 * A claim lists the pods using it; a volume shows its source and node affinity.
 */
import type { VolumeNodeAffinity } from "kubernetes-types/core/v1.js";
import type { PersistentVolume, PersistentVolumeClaim, VolumeAttachment } from "../../api/objects.ts";
import { quantityText } from "../../api/printers/quantity-text.ts";
import { storageClassOf } from "../../api/printers/storage-class-name.ts";
import { accessModesString } from "../../api/storage/access-modes.ts";
import { DescribeText } from "../client/describe-text.ts";
import { type DescribeContext, involvedObjectOf, listPods, searchEvents } from "./describe-context.ts";
import { volumeSourceLines } from "./volume-source-lines.ts";

function finalizersText(finalizers: readonly string[] | undefined): string {
  return `[${(finalizers ?? []).join(" ")}]`;
}

async function claimUsers(context: DescribeContext, claim: PersistentVolumeClaim): Promise<string[]> {
  const pods = await listPods(context, claim.metadata?.namespace ?? "");
  return pods
    .filter((pod) => (pod.spec?.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === claim.metadata?.name))
    .map((pod) => pod.metadata?.name ?? "");
}

export async function describeClaim(context: DescribeContext, claim: PersistentVolumeClaim): Promise<string> {
  const text = new DescribeText();
  const meta = claim.metadata ?? {};
  const phase = meta.deletionTimestamp === undefined ? (claim.status?.phase ?? "") : "Terminating";
  text.line(0, "Name:", meta.name ?? "").line(0, "Namespace:", meta.namespace ?? "");
  text.line(0, "StorageClass:", storageClassOf(claim), true).line(0, "Status:", phase);
  text.line(0, "Volume:", claim.spec?.volumeName ?? "", true);
  text.map(0, "Labels:", meta.labels).map(0, "Annotations:", meta.annotations);
  text.line(0, "Finalizers:", finalizersText(meta.finalizers));
  const bound = (claim.spec?.volumeName ?? "") !== "";
  text.line(0, "Capacity:", bound ? quantityText(claim.status?.capacity?.storage) : "", true);
  text.line(0, "Access Modes:", bound ? accessModesString(claim.status?.accessModes) : "", true);
  text.line(0, "VolumeMode:", claim.spec?.volumeMode ?? "Filesystem");
  text.list(0, "Used By:", await claimUsers(context, claim));
  text.events(await searchEvents(context, involvedObjectOf("PersistentVolumeClaim", claim)), context.nowMs);
  return text.toString();
}

function nodeAffinityLines(text: DescribeText, affinity: VolumeNodeAffinity | undefined): void {
  const terms = affinity?.required?.nodeSelectorTerms ?? [];
  if (terms.length === 0) {
    text.line(0, "Node Affinity:", "<none>");
    return;
  }
  text.line(0, "Node Affinity:").line(1, "Required Terms:");
  terms.forEach((term, index) => {
    const expressions = (term.matchExpressions ?? []).map(
      (e) => `${e.key} ${e.operator.toLowerCase()} [${(e.values ?? []).join(", ")}]`,
    );
    text.list(2, `Term ${index}:`, expressions);
  });
}

export async function describeVolume(context: DescribeContext, volume: PersistentVolume): Promise<string> {
  const text = new DescribeText();
  const meta = volume.metadata ?? {};
  const phase = meta.deletionTimestamp === undefined ? (volume.status?.phase ?? "") : "Terminating";
  const claim = volume.spec?.claimRef;
  text.line(0, "Name:", meta.name ?? "");
  text.map(0, "Labels:", meta.labels).map(0, "Annotations:", meta.annotations);
  text.line(0, "Finalizers:", finalizersText(meta.finalizers));
  text.line(0, "StorageClass:", storageClassOf(volume), true).line(0, "Status:", phase);
  text.line(0, "Claim:", claim === undefined ? "" : `${claim.namespace ?? ""}/${claim.name ?? ""}`, true);
  text.line(0, "Reclaim Policy:", volume.spec?.persistentVolumeReclaimPolicy ?? "");
  text.line(0, "Access Modes:", accessModesString(volume.spec?.accessModes));
  text.line(0, "VolumeMode:", volume.spec?.volumeMode ?? "Filesystem");
  text.line(0, "Capacity:", quantityText(volume.spec?.capacity?.storage));
  nodeAffinityLines(text, volume.spec?.nodeAffinity);
  text.line(0, "Message:", volume.status?.message ?? "", true);
  text.line(0, "Source:");
  for (const [label, value] of volumeSourceLines(volume.spec ?? {})) text.line(1, label, value, true);
  text.events(await searchEvents(context, involvedObjectOf("PersistentVolume", volume)), context.nowMs);
  return text.toString();
}

export async function describeVolumeAttachment(
  context: DescribeContext,
  attachment: VolumeAttachment,
): Promise<string> {
  const text = new DescribeText();
  const meta = attachment.metadata ?? {};
  text.line(0, "Name:", meta.name ?? "");
  text.map(0, "Labels:", meta.labels).map(0, "Annotations:", meta.annotations);
  text.line(0, "Finalizers:", finalizersText(meta.finalizers));
  text.line(0, "Attacher:", attachment.spec.attacher).line(0, "Node:", attachment.spec.nodeName);
  text.line(0, "Source:").line(1, "Persistent Volume:", attachment.spec.source.persistentVolumeName ?? "");
  text.line(0, "Attached:", attachment.status?.attached ? "true" : "false");
  text.map(0, "Attachment Metadata:", attachment.status?.attachmentMetadata);
  const attachError = attachment.status?.attachError;
  const detachError = attachment.status?.detachError;
  text.line(0, "Attach Error:", attachError === undefined ? "" : `${attachError.message ?? ""}`);
  text.line(0, "Detach Error:", detachError === undefined ? "" : `${detachError.message ?? ""}`);
  text.events(await searchEvents(context, involvedObjectOf("VolumeAttachment", attachment)), context.nowMs);
  return text.toString();
}
