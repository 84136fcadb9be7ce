/**
 * What storage a volume is, independent of the node it is seen from: the same cloud disk, RBD image,
 * NFS export or CSI volume is one identity whichever PV, pod or mount names it. The invariants join
 * the API's view (PVs, pod volumes, `node.status.volumesAttached`) with the simulated world's (disks,
 * mappings, mounts) through these keys:
 *
 *   disk/<disk id>            a cloud disk of the world's provider (kvol.io/sim-disk flexVolume, or a
 *                             disk.csi.kvol.io volume, whose handle is the disk id)
 *   rbd/<pool>/<image>        an RBD image
 *   nfs/<server>:<path>       an NFS export
 *   csi/<driver>/<handle>     a CSI volume
 */
import type { Volume } from "kubernetes-types/core/v1.js";
import type { PersistentVolume } from "../../api/objects.ts";
import { diskDriverName } from "../../csi/drivers/common/constants.ts";
import { csiPluginName, sha256Hex } from "../../volume/paths.ts";
import { rbdDefaultPool, rbdPluginName, rbdVolumeId } from "../../volume/plugins/rbd/rbd-source.ts";
import { simDiskDriverName, simDiskIdOption, simDiskPluginName } from "../../volume/plugins/simdisk/sim-disk-source.ts";
import { uniqueVolumeName } from "../../volume/unique-names.ts";

export interface StorageIdentity {
  /** `disk/disk-1`, `rbd/pool/image`, `nfs/10.0.0.2:/exports/a`, `csi/driver/handle`. */
  readonly key: string;
  /**
   * The unique volume name the attach/detach controller reports in `node.status.volumesAttached`,
   * for storage that is attached to nodes (disks, RBD images, CSI volumes); undefined for NFS.
   */
  readonly attachedName: string | undefined;
  /**
   * Path components the kubelet and the drivers name this storage's node-global directories and loop
   * devices with (`mounts/<disk id>`, `<pool>-image-<image>`, the CSI staging hash), so a leftover
   * mount can be matched to the pods still using its storage.
   */
  readonly pathTokens: readonly string[];
}

type VolumeSourceFields = Pick<Volume, "flexVolume" | "rbd" | "nfs">;

const readWriteMany = "ReadWriteMany";
const readOnlyMany = "ReadOnlyMany";

/** The storage a PV names, or undefined for kinds the invariants do not follow (hostPath, local). */
export function identityOfPersistentVolume(pv: PersistentVolume): StorageIdentity | undefined {
  const known = identityByPersistentVolume.get(pv);
  if (known !== undefined) return known ?? undefined;
  const identity = computeIdentityOfPersistentVolume(pv);
  identityByPersistentVolume.set(pv, identity ?? null);
  return identity;
}

/** Identities by PV object: informer caches replace an object on every change, so an object's identity is fixed. */
const identityByPersistentVolume = new WeakMap<PersistentVolume, StorageIdentity | null>();

function computeIdentityOfPersistentVolume(pv: PersistentVolume): StorageIdentity | undefined {
  const spec = pv.spec;
  if (spec === undefined) return undefined;
  const csi = spec.csi;
  if (csi?.driver && csi.volumeHandle) return csiIdentity(csi.driver, csi.volumeHandle);
  return identityOfSource(spec as VolumeSourceFields);
}

/** The storage an inline pod volume names (an inline NFS or RBD volume, a sim-disk flexVolume). */
export function identityOfInlineVolume(volume: Volume): StorageIdentity | undefined {
  return identityOfSource(volume);
}

function identityOfSource(source: VolumeSourceFields): StorageIdentity | undefined {
  const diskId = source.flexVolume?.driver === simDiskDriverName ? source.flexVolume.options?.[simDiskIdOption] : "";
  if (diskId) return diskIdentity(diskId);
  if (source.rbd?.image) return rbdIdentity(source.rbd.pool || rbdDefaultPool, source.rbd.image);
  if (source.nfs?.server) return nfsIdentity(source.nfs.server, source.nfs.path);
  return undefined;
}

export function diskIdentity(diskId: string): StorageIdentity {
  return {
    key: diskKey(diskId),
    attachedName: uniqueVolumeName(simDiskPluginName, diskId),
    // The in-tree plugin's `mounts/<disk id>`, or the CSI staging directory's hash of the handle.
    pathTokens: [diskId, stagingHash(diskId)],
  };
}

function diskKey(diskId: string): string {
  return `disk/${diskId}`;
}

/**
 * Hashes of volume handles already computed: the invariants ask for the same few after every step
 * of a run, and a SHA-256 each time was a tenth of a long run's time. Bounded, since a campaign
 * process plays thousands of clusters, each with its own disk ids.
 */
const stagingHashes = new Map<string, string>();
const stagingHashesMax = 4096;

/** `sha256(handle)`, the CSI staging directory's name for the volume. */
function stagingHash(handle: string): string {
  let hash = stagingHashes.get(handle);
  if (hash === undefined) {
    if (stagingHashes.size >= stagingHashesMax) stagingHashes.clear();
    hash = sha256Hex(handle);
    stagingHashes.set(handle, hash);
  }
  return hash;
}

export function rbdIdentity(pool: string, image: string): StorageIdentity {
  return {
    key: `rbd/${pool}/${image}`,
    attachedName: uniqueVolumeName(rbdPluginName, `${pool}:${image}`),
    pathTokens: [rbdVolumeId(pool, image)],
  };
}

export function nfsIdentity(server: string, path: string): StorageIdentity {
  return { key: `nfs/${server}:${path}`, attachedName: undefined, pathTokens: [] };
}

function csiIdentity(driver: string, handle: string): StorageIdentity {
  return {
    key: csiKey(driver, handle),
    attachedName: uniqueVolumeName(csiPluginName, `${driver}^${handle}`),
    pathTokens: [handle, stagingHash(handle)],
  };
}

function csiKey(driver: string, handle: string): string {
  // A disk.csi.kvol.io volume is a disk of the world's provider: one storage, whichever path attached it.
  return driver === diskDriverName ? diskKey(handle) : `csi/${driver}/${handle}`;
}

/**
 * Whether the PV may be used read-write by one node only: the attach/detach controller's
 * IsMultiAttachAllowed turned around (spec §2.8) — a PV with access modes, none of them
 * ReadWriteMany or ReadOnlyMany.
 */
export function isSingleNodeVolume(pv: PersistentVolume): boolean {
  const modes = pv.spec?.accessModes ?? [];
  return modes.length > 0 && !modes.includes(readWriteMany) && !modes.includes(readOnlyMany);
}

/**
 * The storage key of a unique volume name from `node.status.volumesAttached`
 * (`kvol.io/sim-disk/disk-1` → `disk/disk-1`); undefined for plugins the invariants do not follow.
 */
export function storageKeyOfAttachedName(uniqueName: string): string | undefined {
  const simDiskPrefix = `${simDiskPluginName}/`;
  const rbdPrefix = `${rbdPluginName}/`;
  const csiPrefix = `${csiPluginName}/`;
  if (uniqueName.startsWith(simDiskPrefix)) return diskKey(uniqueName.slice(simDiskPrefix.length));
  if (uniqueName.startsWith(rbdPrefix)) {
    const [pool, image] = splitOnce(uniqueName.slice(rbdPrefix.length), ":");
    return image === undefined ? undefined : `rbd/${pool}/${image}`;
  }
  if (uniqueName.startsWith(csiPrefix)) {
    const [driver, handle] = splitOnce(uniqueName.slice(csiPrefix.length), "^");
    return handle === undefined ? undefined : csiKey(driver, handle);
  }
  return undefined;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + separator.length)];
}
