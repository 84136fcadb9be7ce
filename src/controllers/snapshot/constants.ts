/**
 * The snapshot controller's and the csi-snapshotter sidecar's keys, finalizers and timers, as the
 * external-snapshotter names them (pkg/utils, cmd/*: `--retry-interval-start` 1 s,
 * `--retry-interval-max` 5 min, `--resync-period` 15 min).
 */
export const snapshotGroup = "snapshot.storage.k8s.io";
export const snapshotApiVersion = "snapshot.storage.k8s.io/v1";

/** On a VolumeSnapshotContent bound to a snapshot: kept until the physical snapshot is handled. */
export const contentBoundFinalizer = "snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection";
/** On a VolumeSnapshot bound to its content. */
export const snapshotBoundFinalizer = "snapshot.storage.kubernetes.io/volumesnapshot-bound-protection";
/** On a VolumeSnapshot while a claim is being restored from it. */
export const snapshotAsSourceFinalizer = "snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection";
/** On a PersistentVolumeClaim while a snapshot of it is being taken. */
export const pvcAsSourceFinalizer = "snapshot.storage.kubernetes.io/pvc-as-source-protection";
/** A VolumeSnapshotClass with this annotation "true" is its driver's default. */
export const defaultSnapshotClassAnnotation = "snapshot.storage.kubernetes.io/is-default-class";
/** Set on a content whose snapshot is being deleted, so the sidecar deletes the physical snapshot. */
export const snapshotBeingDeletedAnnotation = "snapshot.storage.kubernetes.io/volumesnapshot-being-deleted";

/** `snapcontent-<snapshot uid>`: the content the controller creates for a snapshot. */
export const dynamicContentNamePrefix = "snapcontent";
/** `snapshot-<snapshot uid>`: CreateSnapshot's name (the sidecar's `--snapshot-name-prefix`). */
export const snapshotNamePrefix = "snapshot";

export const snapshotRetryStartMs = 1_000;
export const snapshotRetryMaxMs = 5 * 60_000;
export const snapshotResyncPeriodMs = 15 * 60_000;
export const snapshotWorkers = 10;
/** The sidecar's `--timeout` for one CSI call. */
export const snapshotterCallTimeoutMs = 60_000;
