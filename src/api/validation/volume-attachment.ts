/**
 * VolumeAttachment validation (storage's ValidateVolumeAttachment): the attacher (a CSI driver
 * name), the node, and exactly one source — a PersistentVolume name or an inline volume spec.
 * The spec never changes after creation; only the attacher writes status.
 */
import type { FieldCause } from "../errors.ts";
import { checkCsiDriverName, checkDnsSubdomain, immutableMessage, inclusiveRangeMessage } from "./field-checks.ts";
import { forbidden, invalid, required, tooLong } from "./field-errors.ts";
import { child } from "./field-path.ts";
import { type JsonObject, readInteger, readObject, readString, readStringMap } from "./json-reader.ts";
import { byteLength, nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { validatePersistentVolumeSpec } from "./persistent-volume.ts";
import { semanticEqual } from "./semantic-equal.ts";

const attachmentMeta: MetaRules = { namespaced: false, nameRule: nameIsDnsSubdomain };
const maxAttachmentMetadataSizeBytes = 256 * 1024;
const maxVolumeErrorMessageBytes = 1024;
const maxInt32 = 2 ** 31 - 1;
const sourceMessage = "must specify exactly one of inlineVolumeSpec and persistentVolumeName";

function validateSource(spec: JsonObject, out: FieldCause[]): void {
  const path = "spec.source";
  const source = readObject(spec.source, path, out) ?? {};
  const volumeName = readString(source.persistentVolumeName, child(path, "persistentVolumeName"), out);
  const inlineSpec = readObject(source.inlineVolumeSpec, child(path, "inlineVolumeSpec"), out);
  if (volumeName === undefined && inlineSpec === undefined) out.push(required(path, sourceMessage));
  else if (volumeName !== undefined && inlineSpec !== undefined) out.push(forbidden(path, sourceMessage));
  else if (volumeName === "") {
    out.push(required(child(path, "persistentVolumeName"), "must specify non empty persistentVolumeName"));
  } else if (volumeName !== undefined) checkDnsSubdomain(volumeName, child(path, "persistentVolumeName"), out);
  else if (inlineSpec !== undefined)
    validatePersistentVolumeSpec(inlineSpec, child(path, "inlineVolumeSpec"), true, out);
}

function validateVolumeError(value: unknown, path: string, out: FieldCause[]): void {
  const volumeError = readObject(value, path, out);
  if (volumeError === undefined) return;
  const message = readString(volumeError.message, child(path, "message"), out) ?? "";
  if (byteLength(message) > maxVolumeErrorMessageBytes)
    out.push(tooLong(child(path, "message"), maxVolumeErrorMessageBytes));
  const code = readInteger(volumeError.errorCode, child(path, "errorCode"), out);
  if (code !== undefined && code < 0)
    out.push(invalid(child(path, "errorCode"), code, inclusiveRangeMessage(0, maxInt32)));
}

function validateStatus(attachment: JsonObject, out: FieldCause[]): void {
  const status = readObject(attachment.status, "status", out) ?? {};
  const metadata = readStringMap(status.attachmentMetadata, "status.attachmentMetadata", out) ?? {};
  const size = Object.entries(metadata).reduce(
    (total, [name, value]) => total + byteLength(name) + byteLength(value),
    0,
  );
  if (size > maxAttachmentMetadataSizeBytes)
    out.push(tooLong("status.attachmentMetadata", maxAttachmentMetadataSizeBytes));
  validateVolumeError(status.attachError, "status.attachError", out);
  validateVolumeError(status.detachError, "status.detachError", out);
}

export function validateVolumeAttachment(attachment: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(attachment.metadata, attachmentMeta, out);
  const spec = readObject(attachment.spec, "spec", out) ?? {};
  checkCsiDriverName(readString(spec.attacher, "spec.attacher", out), "spec.attacher", out);
  validateSource(spec, out);
  // As in Kubernetes, an empty node name fails the DNS subdomain format.
  checkDnsSubdomain(readString(spec.nodeName, "spec.nodeName", out) ?? "", "spec.nodeName", out);
  validateStatus(attachment, out);
}

export function validateVolumeAttachmentUpdate(
  newAttachment: JsonObject,
  oldAttachment: JsonObject,
  out: FieldCause[],
): void {
  validateObjectMetaUpdate(newAttachment.metadata, oldAttachment.metadata, out);
  validateVolumeAttachment(newAttachment, out);
  if (!semanticEqual(newAttachment.spec, oldAttachment.spec))
    out.push(invalid("spec", newAttachment.spec, immutableMessage));
}
