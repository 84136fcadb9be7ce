/**
 * The `snapshot.storage.k8s.io/v1` kinds. Kubernetes ships them as CustomResourceDefinitions of the
 * external-snapshotter, so the `kubernetes-types` package has no declarations for them; these are
 * transcribed from those CRDs' schemas in the same declaration style, and the schema generator reads
 * them like the package's own modules. Only interfaces: nothing here runs.
 */

import type { ObjectReference } from "kubernetes-types/core/v1.js";
import type { ListMeta, ObjectMeta, Time } from "kubernetes-types/meta/v1.js";

/**
 * VolumeSnapshot is a user's request for either creating a point-in-time snapshot of a persistent volume, or binding to a pre-existing snapshot.
 */
export interface VolumeSnapshot {
  /**
   * APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.
   */
  apiVersion: "snapshot.storage.k8s.io/v1";
  /**
   * Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.
   */
  kind: "VolumeSnapshot";
  /** Standard object's metadata. */
  metadata?: ObjectMeta;
  /**
   * spec defines the desired characteristics of a snapshot requested by a user. Required.
   */
  spec: VolumeSnapshotSpec;
  /**
   * status represents the current information of a snapshot. Consumers must verify binding between VolumeSnapshot and VolumeSnapshotContent objects is successful (by validating that both VolumeSnapshot and VolumeSnapshotContent point at each other) before using this object.
   */
  status?: VolumeSnapshotStatus;
}

/** VolumeSnapshotList is a list of VolumeSnapshot objects. */
export interface VolumeSnapshotList {
  /** APIVersion defines the versioned schema of this representation of an object. */
  apiVersion: "snapshot.storage.k8s.io/v1";
  /** List of VolumeSnapshots. */
  items: VolumeSnapshot[];
  /** Kind is a string value representing the REST resource this object represents. */
  kind: "VolumeSnapshotList";
  /** Standard list metadata. */
  metadata?: ListMeta;
}

/** VolumeSnapshotSpec describes the common attributes of a volume snapshot. */
export interface VolumeSnapshotSpec {
  /**
   * source specifies where a snapshot will be created from. This field is immutable after creation. Required.
   */
  source: VolumeSnapshotSource;
  /**
   * VolumeSnapshotClassName is the name of the VolumeSnapshotClass requested by the VolumeSnapshot. VolumeSnapshotClassName may be left nil to indicate that the default SnapshotClass should be used. A given cluster may have multiple default Volume SnapshotClasses: one default per CSI Driver. If a VolumeSnapshot does not specify a SnapshotClass, VolumeSnapshotSource will be checked to figure out what the associated CSI Driver is, and the default VolumeSnapshotClass associated with that CSI Driver will be used. If more than one VolumeSnapshotClass exist for a given CSI Driver and more than one have been marked as default, CreateSnapshot will fail and generate an event. Empty string is not allowed for this field.
   */
  volumeSnapshotClassName?: string;
}

/**
 * VolumeSnapshotSource specifies whether the underlying snapshot should be dynamically taken upon creation or if a pre-existing VolumeSnapshotContent object should be used. Exactly one of its members must be set. Members in VolumeSnapshotSource are immutable.
 */
export interface VolumeSnapshotSource {
  /**
   * persistentVolumeClaimName specifies the name of the PersistentVolumeClaim object representing the volume from which a snapshot should be created. This PVC is assumed to be in the same namespace as the VolumeSnapshot object. This field should be set if the snapshot does not exists, and needs to be created. This field is immutable.
   */
  persistentVolumeClaimName?: string;
  /**
   * volumeSnapshotContentName specifies the name of a pre-existing VolumeSnapshotContent object representing an existing volume snapshot. This field should be set if the snapshot already exists and only needs a representation in Kubernetes. This field is immutable.
   */
  volumeSnapshotContentName?: string;
}

/** VolumeSnapshotStatus is the status of the VolumeSnapshot. */
export interface VolumeSnapshotStatus {
  /**
   * boundVolumeSnapshotContentName is the name of the VolumeSnapshotContent object to which this VolumeSnapshot object intends to bind to. If not specified, it indicates that the VolumeSnapshot object has not been successfully bound to a VolumeSnapshotContent object yet. NOTE: To avoid possible security issues, consumers must verify binding between VolumeSnapshot and VolumeSnapshotContent objects is successful (by validating that both VolumeSnapshot and VolumeSnapshotContent point at each other) before using this object.
   */
  boundVolumeSnapshotContentName?: string;
  /**
   * creationTimestamp is the timestamp when the point-in-time snapshot is taken by the underlying storage system. In dynamic snapshot creation case, this field will be filled in by the snapshot controller with the "creation_time" value returned from CSI "CreateSnapshot" gRPC call. For a pre-existing snapshot, this field will be filled with the "creation_time" value returned from the CSI "ListSnapshots" gRPC call if the driver supports it. If not specified, it may indicate that the creation time of the snapshot is unknown.
   */
  creationTime?: Time;
  /**
   * error is the last observed error during snapshot creation, if any. This field could be helpful to upper level controllers(i.e., application controller) to decide whether they should continue on waiting for the snapshot to be created based on the type of error reported. The snapshot controller will keep retrying when an error occurs during the snapshot creation. Upon success, this error field will be cleared.
   */
  error?: VolumeSnapshotError;
  /**
   * readyToUse indicates if the snapshot is ready to be used to restore a volume. In dynamic snapshot creation case, this field will be filled in by the snapshot controller with the "ready_to_use" value returned from CSI "CreateSnapshot" gRPC call. For a pre-existing snapshot, this field will be filled with the "ready_to_use" value returned from the CSI "ListSnapshots" gRPC call if the driver supports it, otherwise, this field will be set to "True". If not specified, it means the readiness of a snapshot is unknown.
   */
  readyToUse?: boolean;
  /**
   * restoreSize represents the minimum size of volume required to create a volume from this snapshot. In dynamic snapshot creation case, this field will be filled in by the snapshot controller with the "size_bytes" value returned from CSI "CreateSnapshot" gRPC call. For a pre-existing snapshot, this field will be filled with the "size_bytes" value returned from the CSI "ListSnapshots" gRPC call if the driver supports it. When restoring a volume from this snapshot, the size of the volume MUST NOT be smaller than the restoreSize if it is specified, otherwise the restoration will fail. If not specified, it indicates that the size is unknown.
   */
  restoreSize?: string;
  /**
   * VolumeGroupSnapshotName is the name of the VolumeGroupSnapshot of which this VolumeSnapshot is a part of.
   */
  volumeGroupSnapshotName?: string;
}

/** VolumeSnapshotError describes an error encountered during snapshot creation. */
export interface VolumeSnapshotError {
  /**
   * message is a string detailing the encountered error during snapshot creation if specified. NOTE: message may be logged, and it should not contain sensitive information.
   */
  message?: string;
  /** time is the timestamp when the error was encountered. */
  time?: Time;
}

/**
 * VolumeSnapshotContent represents the actual "on-disk" snapshot object in the underlying storage system
 */
export interface VolumeSnapshotContent {
  /** APIVersion defines the versioned schema of this representation of an object. */
  apiVersion: "snapshot.storage.k8s.io/v1";
  /** Kind is a string value representing the REST resource this object represents. */
  kind: "VolumeSnapshotContent";
  /** Standard object's metadata. */
  metadata?: ObjectMeta;
  /** spec defines properties of a VolumeSnapshotContent created by the underlying storage system. Required. */
  spec: VolumeSnapshotContentSpec;
  /** status represents the current information of a snapshot. */
  status?: VolumeSnapshotContentStatus;
}

/** VolumeSnapshotContentList is a list of VolumeSnapshotContent objects. */
export interface VolumeSnapshotContentList {
  /** APIVersion defines the versioned schema of this representation of an object. */
  apiVersion: "snapshot.storage.k8s.io/v1";
  /** items is the list of VolumeSnapshotContents. */
  items: VolumeSnapshotContent[];
  /** Kind is a string value representing the REST resource this object represents. */
  kind: "VolumeSnapshotContentList";
  /** Standard list metadata. */
  metadata?: ListMeta;
}

/** VolumeSnapshotContentSpec is the specification of a VolumeSnapshotContent. */
export interface VolumeSnapshotContentSpec {
  /**
   * deletionPolicy determines whether this VolumeSnapshotContent and its physical snapshot on the underlying storage system should be deleted when its bound VolumeSnapshot is deleted. Supported values are "Retain" and "Delete". "Retain" means that the VolumeSnapshotContent and its physical snapshot on underlying storage system are kept. "Delete" means that the VolumeSnapshotContent and its physical snapshot on underlying storage system are deleted. For dynamically provisioned snapshots, this field will automatically be filled in by the CSI snapshotter sidecar with the "DeletionPolicy" field defined in the corresponding VolumeSnapshotClass. For pre-existing snapshots, users MUST specify this field when creating the VolumeSnapshotContent object. Required.
   */
  deletionPolicy: string;
  /**
   * driver is the name of the CSI driver used to create the physical snapshot on the underlying storage system. This MUST be the same as the name returned by the CSI GetPluginName() call for that driver. Required.
   */
  driver: string;
  /**
   * source specifies whether the snapshot is (or should be) dynamically provisioned or already exists, and just requires a Kubernetes object representation. This field is immutable after creation. Required.
   */
  source: VolumeSnapshotContentSource;
  /**
   * SourceVolumeMode is the mode of the volume whose snapshot is taken. Can be either “Filesystem” or “Block”. If not specified, it indicates the source volume's mode is unknown. This field is immutable. This field is an alpha field.
   */
  sourceVolumeMode?: string;
  /**
   * name of the VolumeSnapshotClass from which this snapshot was (or will be) created. Note that after provisioning, the VolumeSnapshotClass may be deleted or recreated with different set of values, and as such, should not be referenced post-snapshot creation.
   */
  volumeSnapshotClassName?: string;
  /**
   * volumeSnapshotRef specifies the VolumeSnapshot object to which this VolumeSnapshotContent object is bound. VolumeSnapshot.Spec.VolumeSnapshotContentName field must reference to this VolumeSnapshotContent's name for the bidirectional binding to be valid. For a pre-existing VolumeSnapshotContent object, name and namespace of the VolumeSnapshot object MUST be provided for binding to happen. This field is immutable after creation. Required.
   */
  volumeSnapshotRef: ObjectReference;
}

/**
 * VolumeSnapshotContentSource represents the CSI source of a snapshot. Exactly one of its members must be set. Members in VolumeSnapshotContentSource are immutable.
 */
export interface VolumeSnapshotContentSource {
  /**
   * snapshotHandle specifies the CSI "snapshot_id" of a pre-existing snapshot on the underlying storage system for which a Kubernetes object representation was (or should be) created. This field is immutable.
   */
  snapshotHandle?: string;
  /**
   * volumeHandle specifies the CSI "volume_id" of the volume from which a snapshot should be dynamically taken from. This field is immutable.
   */
  volumeHandle?: string;
}

/** VolumeSnapshotContentStatus is the status of a VolumeSnapshotContent. */
export interface VolumeSnapshotContentStatus {
  /**
   * creationTime is the timestamp when the point-in-time snapshot is taken by the underlying storage system. The format of this field is a Unix nanoseconds time encoded as an int64. On Unix, the command `date +%s%N` returns the current time in nanoseconds since 1970-01-01 00:00:00 UTC.
   */
  creationTime?: number;
  /** error is the last observed error during snapshot creation, if any. Upon success after retry, this error field will be cleared. */
  error?: VolumeSnapshotError;
  /** readyToUse indicates if a snapshot is ready to be used to restore a volume. */
  readyToUse?: boolean;
  /**
   * restoreSize represents the complete size of the snapshot in bytes. When restoring a volume from this snapshot, the size of the volume MUST NOT be smaller than the restoreSize if it is specified, otherwise the restoration will fail. If not specified, it indicates that the size is unknown.
   */
  restoreSize?: number;
  /**
   * snapshotHandle is the CSI "snapshot_id" of a snapshot on the underlying storage system. If not specified, it indicates that dynamic snapshot creation has either failed or it is still in progress.
   */
  snapshotHandle?: string;
  /** VolumeGroupSnapshotHandle is the CSI "group_snapshot_id" of a group snapshot on the underlying storage system. */
  volumeGroupSnapshotHandle?: string;
}

/**
 * VolumeSnapshotClass specifies parameters that a underlying storage system uses when creating a volume snapshot. A specific VolumeSnapshotClass is used by specifying its name in a VolumeSnapshot object. VolumeSnapshotClasses are non-namespaced
 */
export interface VolumeSnapshotClass {
  /** APIVersion defines the versioned schema of this representation of an object. */
  apiVersion: "snapshot.storage.k8s.io/v1";
  /**
   * deletionPolicy determines whether a VolumeSnapshotContent created through the VolumeSnapshotClass should be deleted when its bound VolumeSnapshot is deleted. Supported values are "Retain" and "Delete". "Retain" means that the VolumeSnapshotContent and its physical snapshot on underlying storage system are kept. "Delete" means that the VolumeSnapshotContent and its physical snapshot on underlying storage system are deleted. Required.
   */
  deletionPolicy: string;
  /** driver is the name of the storage driver that handles this VolumeSnapshotClass. Required. */
  driver: string;
  /** Kind is a string value representing the REST resource this object represents. */
  kind: "VolumeSnapshotClass";
  /** Standard object's metadata. */
  metadata?: ObjectMeta;
  /** parameters is a key-value map with storage driver specific parameters for creating snapshots. These values are opaque to Kubernetes. */
  parameters?: { [name: string]: string };
}

/** VolumeSnapshotClassList is a collection of VolumeSnapshotClasses. */
export interface VolumeSnapshotClassList {
  /** APIVersion defines the versioned schema of this representation of an object. */
  apiVersion: "snapshot.storage.k8s.io/v1";
  /** items is the list of VolumeSnapshotClasses */
  items: VolumeSnapshotClass[];
  /** Kind is a string value representing the REST resource this object represents. */
  kind: "VolumeSnapshotClassList";
  /** Standard list metadata. */
  metadata?: ListMeta;
}
