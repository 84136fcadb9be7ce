/**
 * The Leases the CSI sidecars elect their leader with (csi-lib-utils `leaderelection`): the
 * external-provisioner locks on its provisioner name with `/` replaced by `-`, the
 * external-attacher on `external-attacher-leader-<driver>`; csi-lib-utils then replaces every
 * character but letters, digits and `-` with `-` (and appends `X` to a name that would end with
 * `-`), in the lock name and in the holder identity alike.
 */

/** csi-lib-utils `--leader-election-namespace` defaults to the sidecar pod's; kvol's sidecars run in the control plane. */
export const csiSidecarLeaseNamespace = "kube-system";

/** external-attacher's lock name: this prefix and the driver name. */
const externalAttacherLockPrefix = "external-attacher-leader-";

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
