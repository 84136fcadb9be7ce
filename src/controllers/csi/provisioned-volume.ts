/**
 * The PersistentVolume external-provisioner creates for a volume CreateVolume made: the CSI source
 * (driver, handle, fsType, the driver's volume context plus the provisioner's identity, secret
 * references), the claim's access modes and volume mode, the class's reclaim policy and mount
 * options, node affinity from the volume's accessible topology, and what the provisioning library
 * adds: the claimRef (the PV controller then binds), `pv.kubernetes.io/provisioned-by`, the class
 * name and, for reclaim policy Delete, the provisioner's finalizer.
 */
import type { CSIPersistentVolumeSource, SecretReference, VolumeNodeAffinity } from "kubernetes-types/core/v1.js";
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from "../../api/objects.ts";
import { Quantity } from "../../api/quantity.ts";
import { claimClassName } from "../../api/storage/pv-helpers.ts";
import type { Topology, Volume } from "../../csi/proto/types.ts";
import {
  annDynamicallyProvisioned,
  nodeSelectorOperatorIn,
  provisionerIdentityVolumeAttribute,
  provisionerVolumeFinalizer,
} from "./constants.ts";

/** The class's default reclaim policy (the StorageClass API default). */
const defaultClassReclaimPolicy = "Delete";
const blockVolumeMode = "Block";

/** The secrets later operations use, resolved from the class when the volume is provisioned. */
export interface VolumeSecretReferences {
  controllerPublish?: SecretReference;
  nodeStage?: SecretReference;
  nodePublish?: SecretReference;
  controllerExpand?: SecretReference;
  nodeExpand?: SecretReference;
}

interface ProvisionedVolumeInput {
  pvName: string;
  claim: PersistentVolumeClaim;
  storageClass: StorageClass;
  driverName: string;
  /** Written to the volume context as `storage.kubernetes.io/csiProvisionerIdentity`. */
  provisionerIdentity: string;
  created: Volume;
  fsType: string;
  /** What the volume holds: the driver's answer, or the request when the driver reported 0. */
  capacityBytes: number;
  secrets: VolumeSecretReferences;
  /** The driver has VOLUME_ACCESSIBILITY_CONSTRAINTS: its accessible topology becomes node affinity. */
  withNodeAffinity: boolean;
}

function reclaimPolicyOfClass(storageClass: StorageClass): string {
  return storageClass.reclaimPolicy ?? defaultClassReclaimPolicy;
}

export function newProvisionedVolume(input: ProvisionedVolumeInput): PersistentVolume {
  const { claim, storageClass } = input;
  const reclaimPolicy = reclaimPolicyOfClass(storageClass);
  const nodeAffinity = input.withNodeAffinity ? nodeAffinityFor(input.created.accessibleTopology) : undefined;
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: {
      name: input.pvName,
      annotations: { [annDynamicallyProvisioned]: input.driverName },
      ...(reclaimPolicy === "Delete" ? { finalizers: [provisionerVolumeFinalizer] } : {}),
    },
    spec: {
      accessModes: [...(claim.spec?.accessModes ?? [])],
      capacity: { storage: Quantity.fromBytes(BigInt(input.capacityBytes)).toString() },
      csi: csiSourceFor(input),
      claimRef: {
        kind: "PersistentVolumeClaim",
        apiVersion: "v1",
        namespace: claim.metadata?.namespace ?? "",
        name: claim.metadata?.name ?? "",
        uid: claim.metadata?.uid ?? "",
        resourceVersion: claim.metadata?.resourceVersion ?? "",
      },
      persistentVolumeReclaimPolicy: reclaimPolicy,
      storageClassName: claimClassName(claim),
      ...(storageClass.mountOptions?.length ? { mountOptions: [...storageClass.mountOptions] } : {}),
      ...(claim.spec?.volumeMode === undefined ? {} : { volumeMode: claim.spec.volumeMode }),
      ...(nodeAffinity === undefined ? {} : { nodeAffinity }),
    },
  };
}

function csiSourceFor(input: ProvisionedVolumeInput): CSIPersistentVolumeSource {
  const { secrets } = input;
  const isBlock = input.claim.spec?.volumeMode === blockVolumeMode;
  return {
    driver: input.driverName,
    volumeHandle: input.created.volumeId,
    ...(isBlock || input.fsType === "" ? {} : { fsType: input.fsType }),
    volumeAttributes: {
      ...input.created.volumeContext,
      [provisionerIdentityVolumeAttribute]: input.provisionerIdentity,
    },
    ...(secrets.controllerPublish ? { controllerPublishSecretRef: secrets.controllerPublish } : {}),
    ...(secrets.nodeStage ? { nodeStageSecretRef: secrets.nodeStage } : {}),
    ...(secrets.nodePublish ? { nodePublishSecretRef: secrets.nodePublish } : {}),
    ...(secrets.controllerExpand ? { controllerExpandSecretRef: secrets.controllerExpand } : {}),
    ...(secrets.nodeExpand ? { nodeExpandSecretRef: secrets.nodeExpand } : {}),
  };
}

/**
 * GenerateVolumeNodeAffinity: one node selector term per accessible topology (ORed), one `In`
 * expression per segment (ANDed); none when the volume is reachable from everywhere.
 */
function nodeAffinityFor(accessibleTopology: readonly Topology[]): VolumeNodeAffinity | undefined {
  const terms = accessibleTopology
    .filter((topology) => Object.keys(topology.segments).length > 0)
    .map((topology) => ({
      matchExpressions: Object.keys(topology.segments)
        .sort()
        .map((key) => ({ key, operator: nodeSelectorOperatorIn, values: [topology.segments[key] ?? ""] })),
    }));
  return terms.length === 0 ? undefined : { required: { nodeSelectorTerms: terms } };
}
