/**
 * What an rbd volume names (pool, image, monitors, Ceph user and key) and the node paths it uses:
 * `plugins/kubernetes.io/rbd/mounts/<pool>-image-<image>` for the per-node mount and
 * `plugins/kubernetes.io/rbd/volumeDevices/<pool>-image-<image>` for raw block mode.
 */
import type { RBDPersistentVolumeSource, RBDVolumeSource } from "kubernetes-types/core/v1.js";
import { pluginGlobalMapPath, pluginGlobalMountDir } from "../../paths.ts";
import type { AccessMode, VolumeSpec } from "../../spec.ts";

export const rbdPluginName = "kubernetes.io/rbd";
export const rbdDefaultPool = "rbd";
const rbdDefaultUser = "admin";
const rbdDefaultKeyring = "/etc/ceph/keyring";

export interface RbdVolumeInfo {
  pool: string;
  image: string;
  monitors: string[];
  /** The Ceph user (`--id`). */
  id: string;
  keyring: string;
  /** The Secret holding the user's key: namespace and name, when one is referenced. */
  secret?: { namespace: string; name: string };
  fsType: string;
  readOnly: boolean;
  /** The PV's access modes; empty for an inline volume. */
  accessModes: AccessMode[];
}

function rbdSource(spec: VolumeSpec): RBDVolumeSource | RBDPersistentVolumeSource | undefined {
  return spec.volume?.rbd ?? spec.persistentVolume?.spec?.rbd;
}

export function isRbdSpec(spec: VolumeSpec): boolean {
  return rbdSource(spec) !== undefined;
}

/** The PV's secretRef may name a namespace; an inline volume's secret lives in the pod's namespace. */
function secretOf(spec: VolumeSpec, podNamespace: string): { namespace: string; name: string } | undefined {
  const inline = spec.volume?.rbd?.secretRef;
  if (inline?.name) return { namespace: podNamespace, name: inline.name };
  const pvRef = spec.persistentVolume?.spec?.rbd?.secretRef;
  if (pvRef?.name) return { namespace: pvRef.namespace || podNamespace, name: pvRef.name };
  return undefined;
}

export function rbdVolumeInfo(spec: VolumeSpec, podNamespace = "default"): RbdVolumeInfo {
  const source = rbdSource(spec);
  if (source === undefined) throw new Error(`spec does not reference an RBD volume type: volume "${spec.name()}"`);
  const secret = secretOf(spec, podNamespace);
  return {
    pool: source.pool || rbdDefaultPool,
    image: source.image,
    monitors: [...source.monitors],
    id: source.user || rbdDefaultUser,
    keyring: source.keyring || rbdDefaultKeyring,
    ...(secret === undefined ? {} : { secret }),
    fsType: source.fsType ?? "",
    // An inline source carries its own readOnly; a PV's comes from the pod's claim reference.
    readOnly: spec.volume?.rbd !== undefined ? (source.readOnly ?? false) : spec.readOnly,
    accessModes: spec.accessModes(),
  };
}

/** `<pool>-image-<image>`: names the image's directories on the node. */
export function rbdVolumeId(pool: string, image: string): string {
  return `${pool}-image-${image}`;
}

export function rbdGlobalMountDir(rootDir: string, pool: string, image: string): string {
  return pluginGlobalMountDir(rootDir, rbdPluginName, rbdVolumeId(pool, image));
}

export function rbdGlobalMapPath(rootDir: string, pool: string, image: string): string {
  return pluginGlobalMapPath(rootDir, rbdPluginName, rbdVolumeId(pool, image));
}

/** Pool and image back from `<pool>-image-<image>` (the last path element of a global path). */
export function parseRbdVolumeId(volumeId: string): { pool: string; image: string } | undefined {
  const separator = volumeId.indexOf("-image-");
  if (separator <= 0) return undefined;
  return { pool: volumeId.slice(0, separator), image: volumeId.slice(separator + "-image-".length) };
}
