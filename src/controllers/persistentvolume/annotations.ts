/**
 * The annotation, finalizer and label keys the PV controller reads and writes (spec §1.11), and the
 * small predicates over them that every sync path shares (component-helpers' pv_helpers.go).
 */
import type { ObjectMeta, PersistentVolume, PersistentVolumeClaim, StorageClass } from "../../api/objects.ts";
import { annBetaStorageClass } from "../../api/storage/pv-helpers.ts";

/** On a claim: the controller finished binding it (syncBoundClaim from then on). */
export const annBindCompleted = "pv.kubernetes.io/bind-completed";
/** On a claim or a volume: the controller, not the user, chose the other side of the binding. */
export const annBoundByController = "pv.kubernetes.io/bound-by-controller";
/** On a volume: the provisioner that created it; its deleter is looked up by this name. */
export const annDynamicallyProvisioned = "pv.kubernetes.io/provisioned-by";
/** On a volume or claim handled by a CSI driver through migration: the PV controller stands down. */
export const annMigratedTo = "pv.kubernetes.io/migrated-to";
/** On a claim: the node the scheduler chose for a WaitForFirstConsumer claim. */
export const annSelectedNode = "volume.kubernetes.io/selected-node";
/** On a claim: who is expected to provision it. */
export const annStorageProvisioner = "volume.kubernetes.io/storage-provisioner";
/** The deprecated form of annStorageProvisioner, still maintained beside it. */
export const annBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner";
/** On a volume: its capacity before an expansion, used for the claim's status.capacity. */
export const annPreResizeCapacity = "volume.alpha.kubernetes.io/pre-resize-capacity";
/** On a StorageClass: claims without a class get this one. */
export const annIsDefaultStorageClass = "storageclass.kubernetes.io/is-default-class";
const annBetaIsDefaultStorageClass = "storageclass.beta.kubernetes.io/is-default-class";

/** Keeps a claim until no running pod uses it. */
export const pvcProtectionFinalizer = "kubernetes.io/pvc-protection";
/** Keeps a volume while it is Bound. */
export const pvProtectionFinalizer = "kubernetes.io/pv-protection";
/** Keeps an in-tree provisioned volume with reclaim policy Delete until its storage asset is deleted. */
export const pvDeletionInTreeProtectionFinalizer = "kubernetes.io/pv-controller";

/** The node label of a topology zone (well-known label `topology.kubernetes.io/zone`). */
export const zoneLabel = "topology.kubernetes.io/zone";
/** Provisioner names under this prefix are in-tree: when none is registered, provisioning fails. */
export const inTreeProvisionerPrefix = "kubernetes.io/";

const yes = "yes";
export const annotationYes = yes;

export function hasAnnotation(object: { metadata?: ObjectMeta }, key: string): boolean {
  const annotations = object.metadata?.annotations;
  return annotations !== undefined && Object.hasOwn(annotations, key);
}

export function annotationOf(object: { metadata?: ObjectMeta }, key: string): string | undefined {
  const annotations = object.metadata?.annotations;
  return annotations !== undefined && Object.hasOwn(annotations, key) ? annotations[key] : undefined;
}

export function hasFinalizer(object: { metadata?: ObjectMeta }, finalizer: string): boolean {
  return object.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** Whether the user asked for a class at all (`""` counts: it asks for "no class"). */
export function claimHasClass(claim: PersistentVolumeClaim): boolean {
  return hasAnnotation(claim, annBetaStorageClass) || claim.spec?.storageClassName != null;
}

export function isDefaultStorageClass(storageClass: StorageClass): boolean {
  return (
    annotationOf(storageClass, annIsDefaultStorageClass) === "true" ||
    annotationOf(storageClass, annBetaIsDefaultStorageClass) === "true"
  );
}

/** `<namespace>/<name>` of a claim, the key of the claim queue and of the pods-by-claim index. */
export function claimKeyOf(claim: PersistentVolumeClaim): string {
  return `${claim.metadata?.namespace ?? ""}/${claim.metadata?.name ?? ""}`;
}

/** The claim key a volume's claimRef points at. */
export function claimRefKeyOf(volume: PersistentVolume): string {
  const claimRef = volume.spec?.claimRef;
  return `${claimRef?.namespace ?? ""}/${claimRef?.name ?? ""}`;
}

export function volumeNameOf(volume: PersistentVolume): string {
  return volume.metadata?.name ?? "";
}

export function claimNameOf(claim: PersistentVolumeClaim): string {
  return claim.metadata?.name ?? "";
}
