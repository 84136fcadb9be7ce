/**
 * The Leases the CSI sidecars elect their leader with (csi-lib-utils `leaderelection`): the
 * external-provisioner locks on its provisioner name with `/` replaced by `-`, the
 * external-attacher on `external-attacher-leader-<driver>`, the csi-snapshotter on
 * `external-snapshotter-leader-<driver>`, the external-resizer on `external-resizer-<driver>`,
 * and the snapshot-controller (one per cluster) on `snapshot-controller-leader`; csi-lib-utils then replaces every
 * character but letters, digits and `-` with `-` (and appends `X` to a name that would end with
 * `-`), in the lock name and in the holder identity alike.
 */

/** csi-lib-utils `--leader-election-namespace` defaults to the sidecar pod's; kvol's sidecars run in the control plane. */
export const csiSidecarLeaseNamespace = "kube-system";

/** external-attacher's lock name: this prefix and the driver name. */
const externalAttacherLockPrefix = "external-attacher-leader-";
/** csi-snapshotter's lock name: this prefix, `-`, and the driver name with `/` made `-`. */
const externalSnapshotterLockPrefix = "external-snapshotter-leader";
/** external-resizer's lock name: this prefix and the sanitized driver name. */
const externalResizerLockPrefix = "external-resizer-";
/** The snapshot-controller's lock name (one controller for the whole cluster). */
export const snapshotControllerLeaseName = "snapshot-controller-leader";

/** csi-lib-utils sanitizeName: a lock name or identity the leader election library accepts. */
export function sanitizedLeaderElectionName(name: string): string {
  const replaced = name.replace(/[^a-zA-Z0-9-]/g, "-");
  return replaced.endsWith("-") ? `${replaced}X` : replaced;
}

/** The Lease external-provisioner for `driverName` holds: `disk.csi.kvol.io` → `disk-csi-kvol-io`. */
export function externalProvisionerLeaseName(driverName: string): string {
  return sanitizedLeaderElectionName(driverName.replaceAll("/", "-"));
}

/** The Lease external-attacher for `driverName` holds: `external-attacher-leader-disk-csi-kvol-io`. */
export function externalAttacherLeaseName(driverName: string): string {
  return sanitizedLeaderElectionName(`${externalAttacherLockPrefix}${driverName}`);
}

/** The Lease csi-snapshotter for `driverName` holds: `external-snapshotter-leader-disk-csi-kvol-io`. */
export function externalSnapshotterLeaseName(driverName: string): string {
  return sanitizedLeaderElectionName(`${externalSnapshotterLockPrefix}-${driverName.replaceAll("/", "-")}`);
}

/** The Lease external-resizer for `driverName` holds: `external-resizer-disk-csi-kvol-io`. */
export function externalResizerLeaseName(driverName: string): string {
  return `${externalResizerLockPrefix}${sanitizedLeaderElectionName(driverName)}`;
}
