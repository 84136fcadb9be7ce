/**
 * The columns of `kubectl get storageclass`; the default class's name carries ` (default)`, and
 * unset policies print as the API defaults them (Delete, Immediate, false).
 */
import type { StorageClass } from "../objects.ts";
import { ageSince } from "./human-duration.ts";
import { ageColumn, column, nameColumn, type ObjectPrinter } from "./table-types.ts";

const defaultClassAnnotations = [
  "storageclass.kubernetes.io/is-default-class",
  "storageclass.beta.kubernetes.io/is-default-class",
];

const columns = [
  nameColumn,
  column("Provisioner", "provisioner indicates the type of the provisioner."),
  column(
    "ReclaimPolicy",
    "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.",
  ),
  column(
    "VolumeBindingMode",
    "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.",
  ),
  column("AllowVolumeExpansion", "allowVolumeExpansion shows whether the storage class allow volume expand."),
  ageColumn,
];

function isDefaultStorageClass(storageClass: StorageClass): boolean {
  const annotations = storageClass.metadata?.annotations ?? {};
  return defaultClassAnnotations.some((key) => annotations[key] === "true");
}

export const storageClassPrinter: ObjectPrinter<StorageClass> = {
  columns,
  row(storageClass, nowMs) {
    const name = storageClass.metadata?.name ?? "";
    return {
      cells: [
        isDefaultStorageClass(storageClass) ? `${name} (default)` : name,
        storageClass.provisioner,
        storageClass.reclaimPolicy ?? "Delete",
        storageClass.volumeBindingMode ?? "Immediate",
        storageClass.allowVolumeExpansion ?? false,
        ageSince(storageClass.metadata?.creationTimestamp, nowMs),
      ],
    };
  },
};
