/**
 * The printer of each kind: what `kubectl get` shows for it, as Kubernetes' own printers define.
 * The API server fills Table responses with these; kinds without a printer get NAME and AGE.
 */
import type { KindMap, KindName } from "../objects.ts";
import { controllerRevisionPrinter } from "./controller-revision-printer.ts";
import { eventPrinter } from "./event-printer.ts";
import { jobPrinter } from "./job-printer.ts";
import { nodePrinter } from "./node-printer.ts";
import {
  configMapPrinter,
  csiDriverPrinter,
  csiNodePrinter,
  csiStorageCapacityPrinter,
  leasePrinter,
  nameAgePrinter,
  namespacePrinter,
  secretPrinter,
} from "./other-printers.ts";
import { persistentVolumeClaimPrinter } from "./persistent-volume-claim-printer.ts";
import { persistentVolumePrinter } from "./persistent-volume-printer.ts";
import { podPrinter } from "./pod-printer.ts";
import {
  clusterRoleBindingPrinter,
  clusterRolePrinter,
  roleBindingPrinter,
  roleObjectPrinter,
} from "./rbac-printers.ts";
import { endpointsPrinter, serviceAccountPrinter, servicePrinter } from "./service-printers.ts";
import {
  volumeSnapshotClassPrinter,
  volumeSnapshotContentPrinter,
  volumeSnapshotPrinter,
} from "./snapshot-printers.ts";
import { storageClassPrinter } from "./storage-class-printer.ts";
import type { ObjectPrinter } from "./table-types.ts";
import { volumeAttachmentPrinter } from "./volume-attachment-printer.ts";
import { deploymentPrinter, replicaSetPrinter, statefulSetPrinter } from "./workload-printers.ts";

type PrinterTable = { [K in KindName]: ObjectPrinter<KindMap[K]> };

const printers: PrinterTable = {
  Pod: podPrinter,
  Node: nodePrinter,
  PersistentVolume: persistentVolumePrinter,
  PersistentVolumeClaim: persistentVolumeClaimPrinter,
  StorageClass: storageClassPrinter,
  VolumeAttachment: volumeAttachmentPrinter,
  Event: eventPrinter,
  StatefulSet: statefulSetPrinter,
  Deployment: deploymentPrinter,
  ReplicaSet: replicaSetPrinter,
  Namespace: namespacePrinter,
  ConfigMap: configMapPrinter,
  Secret: secretPrinter,
  CSIDriver: csiDriverPrinter,
  CSINode: csiNodePrinter,
  CSIStorageCapacity: csiStorageCapacityPrinter,
  Lease: leasePrinter,
  ServiceAccount: serviceAccountPrinter,
  Service: servicePrinter,
  Endpoints: endpointsPrinter,
  ControllerRevision: controllerRevisionPrinter,
  Job: jobPrinter,
  VolumeSnapshot: volumeSnapshotPrinter,
  VolumeSnapshotContent: volumeSnapshotContentPrinter,
  VolumeSnapshotClass: volumeSnapshotClassPrinter,
  Role: roleObjectPrinter,
  ClusterRole: clusterRolePrinter,
  RoleBinding: roleBindingPrinter,
  ClusterRoleBinding: clusterRoleBindingPrinter,
};

/** The printer for objects of `kind`; NAME and AGE for a kind kvol has no printer for. */
export function printerFor(kind: string): ObjectPrinter<object> {
  // Each printer reads only its own kind; the caller passes objects of `kind`.
  const printer = (printers as Partial<Record<string, ObjectPrinter<object>>>)[kind];
  return printer ?? (nameAgePrinter as ObjectPrinter<object>);
}
