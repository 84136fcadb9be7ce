/**
 * The keys, names and periods the two CSI sidecars use, as kubernetes-csi ships them
 * (external-provisioner with sig-storage-lib-external-provisioner, external-attacher; spec §1.9,
 * §1.11, §2.11, §9 #25). The call timeouts and retry bounds the spec lists live in `api/timers.ts`
 * (`externalProvisioner*`, `externalAttacher*`); what is here has no Kubernetes timer of its own.
 */

// ---- annotations and finalizers ------------------------------------------------------------

/** On a claim: who is expected to provision it (the PV controller writes it). */
export const annStorageProvisioner = "volume.kubernetes.io/storage-provisioner";
/** The deprecated form of annStorageProvisioner, read when the current one is absent. */
export const annBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner";
/** On a claim: the node the scheduler chose for a WaitForFirstConsumer claim. */
export const annSelectedNode = "volume.kubernetes.io/selected-node";
/** On a volume: the provisioner that created it; only that provisioner deletes it. */
export const annDynamicallyProvisioned = "pv.kubernetes.io/provisioned-by";
/** On a volume handled through CSI migration: the CSI driver standing in for the in-tree plugin. */
export const annMigratedTo = "pv.kubernetes.io/migrated-to";
/** Keeps a provisioned volume (reclaim policy Delete) until its storage asset is deleted. */
export const provisionerVolumeFinalizer = "external-provisioner.volume.kubernetes.io/finalizer";
/** On a claim while a clone of it is being provisioned (cloning-protection.ts). */
export const pvcCloneFinalizer = "provisioner.storage.kubernetes.io/cloning-protection";
/** On a VolumeAttachment: the driver's node ID, kept for a detach after the CSINode is gone. */
export const annVolumeAttachmentNodeId = "csi.alpha.kubernetes.io/node-id";
/** Prefix of the attacher's finalizer on VolumeAttachments and PersistentVolumes. */
export const attacherFinalizerPrefix = "external-attacher/";
/** Volume attribute naming the provisioner instance that created the volume. */
export const provisionerIdentityVolumeAttribute = "storage.kubernetes.io/csiProvisionerIdentity";

// ---- periods, worker counts, defaults ------------------------------------------------------

/** sig-storage-lib-external-provisioner DefaultResyncPeriod: every claim and volume revisited. */
export const externalProvisionerResyncPeriodMs = 15 * 60_000;
/** external-provisioner `--worker-threads` default. */
export const externalProvisionerWorkers = 100;
/** external-attacher `--worker-threads` default. */
export const externalAttacherWorkers = 10;
/** csi-lib-utils ProbeForever: a driver that is not ready yet is probed again after this long. */
export const driverProbeIntervalMs = 1_000;
/** external-provisioner `--volume-name-prefix` default: volumes are named `pvc-<claim uid>`. */
export const provisionedVolumeNamePrefix = "pvc";
/** The host part of a sidecar's identity when the caller names none. */
export const defaultSidecarHostName = "kvol-control-plane";
/** Node affinity operator of the terms built from a volume's accessible topology. */
export const nodeSelectorOperatorIn = "In";

/** external-resizer `--workers`: claims resized at once. */
export const externalResizerWorkers = 10;

// ---- capacity tracking (external-provisioner pkg/capacity) ----------------------------------

/** external-provisioner `--capacity-poll-interval` default: every CSIStorageCapacity is refreshed this often. */
export const capacityPollPeriodMs = 60_000;
/** Label naming the driver of a CSIStorageCapacity. */
export const capacityDriverNameLabel = "csi.storage.k8s.io/drivername";
/** Label naming who manages a CSIStorageCapacity; one manager never touches another's objects. */
export const capacityManagedByLabel = "csi.storage.k8s.io/managed-by";
/** external-provisioner's managed-by value in central mode. */
export const capacityManagedByDefault = "external-provisioner";
/** CSIStorageCapacity objects are created with this generateName. */
export const capacityObjectGenerateName = "csisc-";
/** The namespace kvol's sidecars publish capacity in (a driver deployment's own namespace upstream). */
export const capacityNamespaceDefault = "kube-system";
