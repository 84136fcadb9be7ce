/**
 * The validation entry point the Store calls on every create and update: it dispatches to the
 * kind's rules and returns every problem found, worded and located as Kubernetes reports them
 * (`spec.accessModes: Unsupported value: "ReadWriteSome": supported values: ...`).
 */
import type { FieldCause } from "../errors.ts";
import type { KindName, KObject } from "../objects.ts";
import type { ResourceType } from "../resources.ts";
import { validateConfigMap, validateConfigMapUpdate } from "./config-map.ts";
import { validateControllerRevision, validateControllerRevisionUpdate } from "./controller-revision.ts";
import { validateCsiDriver, validateCsiDriverUpdate } from "./csi-driver.ts";
import { validateCsiNode, validateCsiNodeUpdate } from "./csi-node.ts";
import { validateCsiStorageCapacity, validateCsiStorageCapacityUpdate } from "./csi-storage-capacity.ts";
import { validateDeployment, validateDeploymentUpdate } from "./deployment.ts";
import { validateEndpoints, validateEndpointsUpdate } from "./endpoints.ts";
import { validateEvent, validateEventUpdate } from "./event.ts";
import { typeInvalid } from "./field-errors.ts";
import { validateJob, validateJobUpdate } from "./job.ts";
import { isJsonObject, type JsonObject } from "./json-reader.ts";
import { validateLease, validateLeaseUpdate } from "./lease.ts";
import { validateNamespace, validateNamespaceUpdate } from "./namespace.ts";
import { validateNode, validateNodeUpdate } from "./node.ts";
import { validatePersistentVolume, validatePersistentVolumeUpdate } from "./persistent-volume.ts";
import { validatePersistentVolumeClaim, validatePersistentVolumeClaimUpdate } from "./persistent-volume-claim.ts";
import { validatePod, validatePodUpdate } from "./pod.ts";
import {
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateClusterRoleUpdate,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
  validateRoleUpdate,
} from "./rbac.ts";
import { validateReplicaSet, validateReplicaSetUpdate } from "./replicaset.ts";
import { validateSecret, validateSecretUpdate } from "./secret.ts";
import { validateService, validateServiceUpdate } from "./service.ts";
import { validateServiceAccount, validateServiceAccountUpdate } from "./service-account.ts";
import { validateStatefulSet, validateStatefulSetUpdate } from "./statefulset.ts";
import { validateStorageClass, validateStorageClassUpdate } from "./storage-class.ts";
import { validateVolumeAttachment, validateVolumeAttachmentUpdate } from "./volume-attachment.ts";
import {
  validateVolumeSnapshot,
  validateVolumeSnapshotClass,
  validateVolumeSnapshotClassUpdate,
  validateVolumeSnapshotContent,
  validateVolumeSnapshotContentUpdate,
  validateVolumeSnapshotUpdate,
} from "./volume-snapshot.ts";

type CreateRules = (object: JsonObject, out: FieldCause[]) => void;
type UpdateRules = (object: JsonObject, old: JsonObject, out: FieldCause[]) => void;

interface KindRules {
  create: CreateRules;
  update: UpdateRules;
}

const rulesByKind: Readonly<Record<KindName, KindRules>> = {
  Pod: { create: validatePod, update: validatePodUpdate },
  Node: { create: validateNode, update: validateNodeUpdate },
  PersistentVolume: { create: validatePersistentVolume, update: validatePersistentVolumeUpdate },
  PersistentVolumeClaim: { create: validatePersistentVolumeClaim, update: validatePersistentVolumeClaimUpdate },
  Secret: { create: validateSecret, update: validateSecretUpdate },
  ConfigMap: { create: validateConfigMap, update: validateConfigMapUpdate },
  Event: { create: validateEvent, update: validateEventUpdate },
  Namespace: { create: validateNamespace, update: validateNamespaceUpdate },
  StorageClass: { create: validateStorageClass, update: validateStorageClassUpdate },
  VolumeAttachment: { create: validateVolumeAttachment, update: validateVolumeAttachmentUpdate },
  CSIDriver: { create: validateCsiDriver, update: validateCsiDriverUpdate },
  CSINode: { create: validateCsiNode, update: validateCsiNodeUpdate },
  CSIStorageCapacity: { create: validateCsiStorageCapacity, update: validateCsiStorageCapacityUpdate },
  StatefulSet: { create: validateStatefulSet, update: validateStatefulSetUpdate },
  ReplicaSet: { create: validateReplicaSet, update: validateReplicaSetUpdate },
  Deployment: { create: validateDeployment, update: validateDeploymentUpdate },
  Lease: { create: validateLease, update: validateLeaseUpdate },
  ServiceAccount: { create: validateServiceAccount, update: validateServiceAccountUpdate },
  Service: { create: validateService, update: validateServiceUpdate },
  Endpoints: { create: validateEndpoints, update: validateEndpointsUpdate },
  ControllerRevision: { create: validateControllerRevision, update: validateControllerRevisionUpdate },
  Job: { create: validateJob, update: validateJobUpdate },
  VolumeSnapshot: { create: validateVolumeSnapshot, update: validateVolumeSnapshotUpdate },
  VolumeSnapshotContent: { create: validateVolumeSnapshotContent, update: validateVolumeSnapshotContentUpdate },
  VolumeSnapshotClass: { create: validateVolumeSnapshotClass, update: validateVolumeSnapshotClassUpdate },
  Role: { create: validateRole, update: validateRoleUpdate },
  ClusterRole: { create: validateClusterRole, update: validateClusterRoleUpdate },
  RoleBinding: { create: validateRoleBinding, update: validateRoleBindingUpdate },
  ClusterRoleBinding: { create: validateClusterRoleBinding, update: validateClusterRoleBindingUpdate },
};

/** Drops repeated causes (Kubernetes also prints each distinct message once). */
function distinct(causes: readonly FieldCause[]): FieldCause[] {
  const seen = new Set<string>();
  return causes.filter((cause) => {
    const identity = `${cause.field}\u0000${cause.reason}\u0000${cause.message}`;
    if (seen.has(identity)) return false;
    seen.add(identity);
    return true;
  });
}

/** Returns every problem found (empty = valid). `old` is set on update (for immutability rules). */
export function validateObject(type: ResourceType, obj: KObject, old?: KObject): FieldCause[] {
  // The static type is a promise the caller cannot keep for user input; check the shape at runtime.
  const object: unknown = obj;
  const previous: unknown = old;
  if (!isJsonObject(object)) return [typeInvalid("", object, "object")];
  const rules = rulesByKind[type.kind];
  const out: FieldCause[] = [];
  if (isJsonObject(previous)) rules.update(object, previous, out);
  else rules.create(object, out);
  return distinct(out);
}
