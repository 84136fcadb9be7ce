/**
 * The columns of `kubectl get pvc`: phase (Terminating while deleted), the bound volume, and — once
 * bound — the capacity and access modes the volume gave it.
 */
import type { PersistentVolumeClaim } from "../objects.ts";
import { accessModesString } from "../storage/access-modes.ts";
import { ageSince } from "./human-duration.ts";
import { quantityText } from "./quantity-text.ts";
import { storageClassOf } from "./storage-class-name.ts";
import { ageColumn, column, nameColumn, type ObjectPrinter, unsetText } from "./table-types.ts";

const columns = [
  nameColumn,
  column("Status", "phase represents the current phase of PersistentVolumeClaim."),
  column("Volume", "volumeName is the binding reference to the PersistentVolume backing this claim."),
  column("Capacity", "capacity represents the actual resources of the underlying volume."),
  column("Access Modes", "accessModes contains the actual access modes the volume backing the PVC has."),
  column("StorageClass", "storageClassName is the name of the StorageClass required by the claim."),
  column(
    "VolumeAttributesClass",
    "volumeAttributesClassName may be used to set the VolumeAttributesClass used by this claim.",
  ),
  ageColumn,
  column("VolumeMode", "volumeMode defines what type of volume is required by the claim.", { priority: 1 }),
];

export const persistentVolumeClaimPrinter: ObjectPrinter<PersistentVolumeClaim> = {
  columns,
  row(claim, nowMs) {
    const phase = claim.metadata?.deletionTimestamp === undefined ? (claim.status?.phase ?? "") : "Terminating";
    const bound = (claim.spec?.volumeName ?? "") !== "";
    return {
      cells: [
        claim.metadata?.name ?? "",
        phase,
        claim.spec?.volumeName ?? "",
        bound ? quantityText(claim.status?.capacity?.storage) : "",
        bound ? accessModesString(claim.status?.accessModes) : "",
        storageClassOf(claim),
        claim.spec?.volumeAttributesClassName ?? unsetText,
        ageSince(claim.metadata?.creationTimestamp, nowMs),
        claim.spec?.volumeMode ?? unsetText,
      ],
    };
  },
};
