/**
 * The tables of the snapshot kinds: the additionalPrinterColumns of the external-snapshotter's
 * CustomResourceDefinitions, filled as kube-apiserver fills a custom resource's table — a Name column
 * first, a missing value left blank, and `date` columns shown as an age (CREATIONTIME `5m`).
 */
import type { VolumeSnapshot, VolumeSnapshotClass, VolumeSnapshotContent } from "../objects.ts";
import { ageSince } from "./human-duration.ts";
import { column, nameColumn, type ObjectPrinter, type TableCell, type TableColumnDefinition } from "./table-types.ts";

/** A CRD column: without a description, kube-apiserver describes it by its JSONPath. */
function crdColumn(
  name: string,
  type: TableColumnDefinition["type"],
  jsonPath: string,
  description?: string,
): TableColumnDefinition {
  return column(name, description ?? `Custom resource definition column (in JSONPath format): ${jsonPath}`, { type });
}

const ageColumn = crdColumn("Age", "date", ".metadata.creationTimestamp");
const readyToUseDescription = "Indicates if the snapshot is ready to be used to restore a volume.";

/** A missing value is a blank cell, as kubectl prints a custom resource's null cell. */
function cell(value: TableCell | undefined): TableCell {
  return value ?? "";
}

function dateCell(timestamp: string | undefined, nowMs: number): TableCell {
  return timestamp === undefined ? "" : ageSince(timestamp, nowMs);
}

export const volumeSnapshotPrinter: ObjectPrinter<VolumeSnapshot> = {
  columns: [
    nameColumn,
    crdColumn("ReadyToUse", "boolean", ".status.readyToUse", readyToUseDescription),
    crdColumn(
      "SourcePVC",
      "string",
      ".spec.source.persistentVolumeClaimName",
      "If a new snapshot needs to be created, this contains the name of the source PVC from which this snapshot was (or will be) created.",
    ),
    crdColumn(
      "SourceSnapshotContent",
      "string",
      ".spec.source.volumeSnapshotContentName",
      "If a snapshot already exists, this contains the name of the existing VolumeSnapshotContent object representing the existing snapshot.",
    ),
    crdColumn(
      "RestoreSize",
      "string",
      ".status.restoreSize",
      "Represents the minimum size of volume required to rehydrate from this snapshot.",
    ),
    crdColumn(
      "SnapshotClass",
      "string",
      ".spec.volumeSnapshotClassName",
      "The name of the VolumeSnapshotClass requested by the VolumeSnapshot.",
    ),
    crdColumn(
      "SnapshotContent",
      "string",
      ".status.boundVolumeSnapshotContentName",
      "Name of the VolumeSnapshotContent object to which the VolumeSnapshot object intends to bind to. Please note that verification of binding actually requires checking both VolumeSnapshot and VolumeSnapshotContent to ensure both are pointing at each other. Binding MUST be verified prior to usage of this object.",
    ),
    crdColumn(
      "CreationTime",
      "date",
      ".status.creationTime",
      "Timestamp when the point-in-time snapshot was taken by the underlying storage system.",
    ),
    ageColumn,
  ],
  row(snapshot, nowMs) {
    const spec = snapshot.spec ?? { source: {} };
    return {
      cells: [
        snapshot.metadata?.name ?? "",
        cell(snapshot.status?.readyToUse),
        cell(spec.source?.persistentVolumeClaimName),
        cell(spec.source?.volumeSnapshotContentName),
        cell(snapshot.status?.restoreSize),
        cell(spec.volumeSnapshotClassName),
        cell(snapshot.status?.boundVolumeSnapshotContentName),
        dateCell(snapshot.status?.creationTime, nowMs),
        dateCell(snapshot.metadata?.creationTimestamp, nowMs),
      ],
    };
  },
};

export const volumeSnapshotContentPrinter: ObjectPrinter<VolumeSnapshotContent> = {
  columns: [
    nameColumn,
    crdColumn("ReadyToUse", "boolean", ".status.readyToUse", readyToUseDescription),
    crdColumn("RestoreSize", "integer", ".status.restoreSize", "Represents the complete size of the snapshot in bytes"),
    crdColumn(
      "DeletionPolicy",
      "string",
      ".spec.deletionPolicy",
      "Determines whether this VolumeSnapshotContent and its physical snapshot on the underlying storage system should be deleted when its bound VolumeSnapshot is deleted.",
    ),
    crdColumn(
      "Driver",
      "string",
      ".spec.driver",
      "Name of the CSI driver used to create the physical snapshot on the underlying storage system.",
    ),
    crdColumn(
      "VolumeSnapshotClass",
      "string",
      ".spec.volumeSnapshotClassName",
      "Name of the VolumeSnapshotClass to which this snapshot belongs.",
    ),
    crdColumn(
      "VolumeSnapshot",
      "string",
      ".spec.volumeSnapshotRef.name",
      "Name of the VolumeSnapshot object to which this VolumeSnapshotContent object is bound.",
    ),
    crdColumn(
      "VolumeSnapshotNamespace",
      "string",
      ".spec.volumeSnapshotRef.namespace",
      "Namespace of the VolumeSnapshot object to which this VolumeSnapshotContent object is bound.",
    ),
    ageColumn,
  ],
  row(content, nowMs) {
    const spec = content.spec;
    return {
      cells: [
        content.metadata?.name ?? "",
        cell(content.status?.readyToUse),
        cell(content.status?.restoreSize),
        cell(spec?.deletionPolicy),
        cell(spec?.driver),
        cell(spec?.volumeSnapshotClassName),
        cell(spec?.volumeSnapshotRef?.name),
        cell(spec?.volumeSnapshotRef?.namespace),
        dateCell(content.metadata?.creationTimestamp, nowMs),
      ],
    };
  },
};

export const volumeSnapshotClassPrinter: ObjectPrinter<VolumeSnapshotClass> = {
  columns: [
    nameColumn,
    crdColumn("Driver", "string", ".driver"),
    crdColumn(
      "DeletionPolicy",
      "string",
      ".deletionPolicy",
      "Determines whether a VolumeSnapshotContent created through the VolumeSnapshotClass should be deleted when its bound VolumeSnapshot is deleted.",
    ),
    ageColumn,
  ],
  row(snapshotClass, nowMs) {
    return {
      cells: [
        snapshotClass.metadata?.name ?? "",
        cell(snapshotClass.driver),
        cell(snapshotClass.deletionPolicy),
        dateCell(snapshotClass.metadata?.creationTimestamp, nowMs),
      ],
    };
  },
};
