/**
 * The columns of `kubectl get pv`: capacity, access modes, reclaim policy, phase (Terminating while
 * deleted), the bound claim as `namespace/name`, class, volume attributes class, reason and age.
 */
import type { PersistentVolume } from "../objects.ts";
import { accessModesString } from "../storage/access-modes.ts";
import { ageSince } from "./human-duration.ts";
import { quantityText } from "./quantity-text.ts";
import { storageClassOf } from "./storage-class-name.ts";
import { ageColumn, column, nameColumn, type ObjectPrinter, unsetText } from "./table-types.ts";

const columns = [
  nameColumn,
  column("Capacity", "capacity is the description of the persistent volume's resources and capacity."),
  column("Access Modes", "accessModes contains all ways the volume can be mounted."),
  column(
    "Reclaim Policy",
    "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.",
  ),
  column("Status", "phase indicates if a volume is available, bound to a claim, or released by a claim."),
  column("Claim", "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim."),
  column("StorageClass", "storageClassName is the name of StorageClass to which this persistent volume belongs."),
  column("VolumeAttributesClass", "Name of VolumeAttributesClass to which this persistent volume belongs."),
  column(
    "Reason",
    "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.",
  ),
  ageColumn,
  column(
    "VolumeMode",
    "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.",
    {
      priority: 1,
    },
  ),
];

function claimText(volume: PersistentVolume): string {
  const ref = volume.spec?.claimRef;
  return ref === undefined ? "" : `${ref.namespace ?? ""}/${ref.name ?? ""}`;
}

export const persistentVolumePrinter: ObjectPrinter<PersistentVolume> = {
  columns,
  row(volume, nowMs) {
    const phase = volume.metadata?.deletionTimestamp === undefined ? (volume.status?.phase ?? "") : "Terminating";
    return {
      cells: [
        volume.metadata?.name ?? "",
        quantityText(volume.spec?.capacity?.storage),
        accessModesString(volume.spec?.accessModes),
        volume.spec?.persistentVolumeReclaimPolicy ?? "",
        phase,
        claimText(volume),
        storageClassOf(volume),
        volume.spec?.volumeAttributesClassName ?? unsetText,
        volume.status?.reason ?? "",
        ageSince(volume.metadata?.creationTimestamp, nowMs),
        volume.spec?.volumeMode ?? unsetText,
      ],
    };
  },
};
