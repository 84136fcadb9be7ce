/**
 * The small predicates over PersistentVolumes and claims that the PV controller and the scheduler's
 * volume binding both apply (component-helpers storage/volume pv_helpers.go and helpers.go). They
 * live here, under the API, because controllers never import one another.
 */
import type { Node, PersistentVolume, PersistentVolumeClaim } from "../objects.ts";
import { parseQuantity, Quantity } from "../quantity.ts";
import { matchesNodeSelectorTerms } from "../scheduling/node-selector.ts";

/** The storage class annotation that predates spec.storageClassName; it wins when both are set. */
export const annBetaStorageClass = "volume.beta.kubernetes.io/storage-class";

const storageResource = "storage";
/** Kubernetes treats a missing volumeMode as Filesystem on both sides. */
const filesystemMode = "Filesystem";
const zeroQuantity = Quantity.fromBytes(0n);

function annotation(object: PersistentVolume | PersistentVolumeClaim, key: string): string | undefined {
  const annotations = object.metadata?.annotations;
  return annotations !== undefined && Object.hasOwn(annotations, key) ? annotations[key] : undefined;
}

/** GetPersistentVolumeClaimClass: the beta annotation when present, else spec.storageClassName, else "". */
export function claimClassName(claim: PersistentVolumeClaim): string {
  return annotation(claim, annBetaStorageClass) ?? claim.spec?.storageClassName ?? "";
}

/** GetPersistentVolumeClass: the beta annotation when present, else spec.storageClassName, else "". */
export function volumeClassName(volume: PersistentVolume): string {
  return annotation(volume, annBetaStorageClass) ?? volume.spec?.storageClassName ?? "";
}

/** IsVolumeBoundToClaim: the claimRef names this claim, and its uid (when set) is this claim's. */
export function isVolumeBoundToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const claimRef = volume.spec?.claimRef;
  if (claimRef == null) return false;
  if (claimRef.name !== claim.metadata?.name || claimRef.namespace !== claim.metadata?.namespace) return false;
  return !claimRef.uid || claimRef.uid === claim.metadata?.uid;
}

/** A stored quantity (validation guarantees it parses); an absent one is zero. */
function storageQuantity(resources: Readonly<Record<string, unknown>> | undefined): Quantity {
  const value = resources?.[storageResource];
  return value === undefined || value === null ? zeroQuantity : parseQuantity(String(value));
}

export function requestedStorage(claim: PersistentVolumeClaim): Quantity {
  return storageQuantity(claim.spec?.resources?.requests);
}

export function volumeCapacity(volume: PersistentVolume): Quantity {
  return storageQuantity(volume.spec?.capacity);
}

/** CheckVolumeModeMismatches. */
export function volumeModeMismatch(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  return (claim.spec?.volumeMode ?? filesystemMode) !== (volume.spec?.volumeMode ?? filesystemMode);
}

/** Whether the claim and the volume name the same VolumeAttributesClass ("" for none). */
export function attributesClassMismatch(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  return (claim.spec?.volumeAttributesClassName ?? "") !== (volume.spec?.volumeAttributesClassName ?? "");
}

/** Whether `available` offers every mode in `requested`. */
export function containsAllAccessModes(available: readonly string[], requested: readonly string[]): boolean {
  return requested.every((mode) => available.includes(mode));
}

/** CheckAccessModes: the volume offers every access mode the claim asks for. */
export function offersAccessModes(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  return containsAllAccessModes(volume.spec?.accessModes ?? [], claim.spec?.accessModes ?? []);
}

/** CheckNodeAffinity: a volume without required node affinity is usable on every node. */
export function volumeFitsNode(volume: PersistentVolume, node: Node): boolean {
  const required = volume.spec?.nodeAffinity?.required;
  return required == null || matchesNodeSelectorTerms(node, required.nodeSelectorTerms);
}
