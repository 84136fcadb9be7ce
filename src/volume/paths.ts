/**
 * Every path the kubelet and the volume plugins use under the kubelet root directory (spec §6.1).
 * Operators find volumes by these paths (`/var/lib/kubelet/pods/<uid>/volumes/kubernetes.io~nfs/<pv>`)
 * and reconstruction after a kubelet restart rediscovers volumes from them, so they are exact.
 *
 * Plugin names are escaped (`/` → `~`) where they name a single directory under `pods/`, and used
 * as they are (so `kubernetes.io/csi` is two directories) under `plugins/`.
 */
import { createHash } from "node:crypto";
import { posix } from "node:path";

export const defaultKubeletRootDir = "/var/lib/kubelet";

const podsDirName = "pods";
const podVolumesDirName = "volumes";
const podVolumeSubpathsDirName = "volume-subpaths";
const podVolumeDevicesDirName = "volumeDevices";
const podPluginsDirName = "plugins";
const pluginsDirName = "plugins";
const pluginsRegistryDirName = "plugins_registry";
const globalMountsDirName = "mounts";
const volumeDevicesDirName = "volumeDevices";

export const csiPluginName = "kubernetes.io/csi";
const csiGlobalMountDirName = "globalmount";
const csiLegacyPersistentVolumeDirName = "pv";
const csiBlockStagingDirName = "staging";
const csiBlockPublishDirName = "publish";
const csiBlockGlobalMapDirName = "dev";
const csiBlockDataDirName = "data";
export const csiVolumeDataFileName = "vol_data.json";
const csiPublishTargetDirName = "mount";
const csiRegistrationSocketSuffix = "-reg.sock";
const csiDriverSocketFileName = "csi.sock";

/**
 * `posix.join(dir, a, b, c)` without normalizing again when the plain concatenation already is a
 * normal absolute path — the usual case, as the kubelet root is absolute and API names hold no `/`,
 * `.` or `..` segment. Any other input takes `posix.join`, so the result is the same either way:
 * `join` only drops empty parts and normalizes, and a normal concatenation has no empty part.
 */
function join(dir: string, a: string, b?: string, c?: string): string {
  let path = `${dir}/${a}`;
  if (b !== undefined) path += `/${b}`;
  if (c !== undefined) path += `/${c}`;
  if (dir !== "" && isNormalAbsolute(path)) return path;
  if (b === undefined) return posix.join(dir, a);
  return c === undefined ? posix.join(dir, a, b) : posix.join(dir, a, b, c);
}

const dot = 0x2e;

/** True when `path` is `/` followed by segments none of which is empty, `.` or `..` (no trailing `/`). */
function isNormalAbsolute(path: string): boolean {
  if (path.charCodeAt(0) !== 0x2f) return false;
  let start = 1;
  for (;;) {
    const slash = path.indexOf("/", start);
    const end = slash === -1 ? path.length : slash;
    const length = end - start;
    if (length === 0) return false;
    if (path.charCodeAt(start) === dot && (length === 1 || (length === 2 && path.charCodeAt(start + 1) === dot))) {
      return false;
    }
    if (slash === -1) return true;
    start = slash + 1;
  }
}

/** `kubernetes.io/nfs` → `kubernetes.io~nfs` (Kubernetes' EscapeQualifiedName). */
export function escapeQualifiedName(name: string): string {
  return name.replaceAll("/", "~");
}

/** `kubernetes.io~nfs` → `kubernetes.io/nfs`. */
export function unescapeQualifiedName(escaped: string): string {
  return escaped.replaceAll("~", "/");
}

// Pods.

export function podsDir(root: string): string {
  return join(root, podsDirName);
}

export function podDir(root: string, podUID: string): string {
  return join(podsDir(root), podUID);
}

/** `pods/<uid>/volumes`. */
export function podVolumesDir(root: string, podUID: string): string {
  return join(podDir(root, podUID), podVolumesDirName);
}

/** `pods/<uid>/volumes/<escaped plugin>/<spec name>`: where a filesystem volume appears for a pod. */
export function podVolumeDir(root: string, podUID: string, pluginName: string, specName: string): string {
  return join(podVolumesDir(root, podUID), escapeQualifiedName(pluginName), specName);
}

/** `pods/<uid>/plugins/<escaped plugin>`: per-pod plugin metadata (emptyDir's `ready` files). */
export function podPluginDir(root: string, podUID: string, pluginName: string): string {
  return join(podDir(root, podUID), podPluginsDirName, escapeQualifiedName(pluginName));
}

/** `pods/<uid>/volume-subpaths`. */
export function podVolumeSubpathsDir(root: string, podUID: string): string {
  return join(podDir(root, podUID), podVolumeSubpathsDirName);
}

/** `pods/<uid>/volume-subpaths/<volume>/<container>/<mount index>`: one subPath bind mount. */
export function podVolumeSubpathDir(
  root: string,
  podUID: string,
  volumeName: string,
  containerName: string,
  mountIndex: number,
): string {
  return join(podVolumeSubpathsDir(root, podUID), volumeName, containerName, String(mountIndex));
}

/** `pods/<uid>/volumeDevices`. */
export function podVolumeDevicesDir(root: string, podUID: string): string {
  return join(podDir(root, podUID), podVolumeDevicesDirName);
}

/** `pods/<uid>/volumeDevices/<escaped plugin>`: holds one device symlink per block volume. */
export function podVolumeDeviceDir(root: string, podUID: string, pluginName: string): string {
  return join(podVolumeDevicesDir(root, podUID), escapeQualifiedName(pluginName));
}

/** `pods/<uid>/volumeDevices/<escaped plugin>/<spec name>`: the pod's link to a block device. */
export function podVolumeDevicePath(root: string, podUID: string, pluginName: string, specName: string): string {
  return join(podVolumeDeviceDir(root, podUID, pluginName), specName);
}

// Plugins (node-global).

export function pluginsDir(root: string): string {
  return join(root, pluginsDirName);
}

/** `plugins/<plugin>` with the plugin name unescaped (`plugins/kubernetes.io/rbd`). */
export function pluginDir(root: string, pluginName: string): string {
  return join(pluginsDir(root), pluginName);
}

/** `plugins/<plugin>/mounts/<volume id>`: where an in-tree plugin mounts a device once per node. */
export function pluginGlobalMountDir(root: string, pluginName: string, volumeId: string): string {
  return join(pluginDir(root, pluginName), globalMountsDirName, volumeId);
}

/** `plugins/<plugin>/volumeDevices`. */
export function pluginVolumeDevicesDir(root: string, pluginName: string): string {
  return join(pluginDir(root, pluginName), volumeDevicesDirName);
}

/** `plugins/<plugin>/volumeDevices/<volume id>`: an in-tree block volume's global map path. */
export function pluginGlobalMapPath(root: string, pluginName: string, volumeId: string): string {
  return join(pluginVolumeDevicesDir(root, pluginName), volumeId);
}

/** `<global map path>/<pod uid>`: the device file bind-mounted for one pod. */
export function globalMapPodDevicePath(globalMapPath: string, podUID: string): string {
  return join(globalMapPath, podUID);
}

// CSI.

/** Lowercase hex SHA-256: CSI staging directories are named by the hash of the volume handle. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** `plugins/kubernetes.io/csi/<driver>/<sha256(volumeHandle)>/globalmount`: the CSI staging path. */
export function csiStagingPath(root: string, driverName: string, volumeHandle: string): string {
  return join(pluginDir(root, csiPluginName), driverName, sha256Hex(volumeHandle), csiGlobalMountDirName);
}

/** Older kubelets: `plugins/kubernetes.io/csi/pv/<pvName>/globalmount`. */
export function csiLegacyStagingPath(root: string, pvName: string): string {
  return join(pluginDir(root, csiPluginName), csiLegacyPersistentVolumeDirName, pvName, csiGlobalMountDirName);
}

/** `pods/<uid>/volumes/kubernetes.io~csi/<spec name>/mount`: the NodePublish target. */
export function csiPublishTargetPath(root: string, podUID: string, specName: string): string {
  return join(podVolumeDir(root, podUID, csiPluginName, specName), csiPublishTargetDirName);
}

/** `vol_data.json` next to a staging or publish directory. */
export function csiVolumeDataPath(stagingOrTargetPath: string): string {
  return join(posix.dirname(stagingOrTargetPath), csiVolumeDataFileName);
}

/** `plugins/kubernetes.io/csi/volumeDevices/<spec name>`. */
export function csiBlockVolumeDir(root: string, specName: string): string {
  return join(pluginVolumeDevicesDir(root, csiPluginName), specName);
}

/** `plugins/kubernetes.io/csi/volumeDevices/staging/<spec name>`: NodeStage target for block. */
export function csiBlockStagingPath(root: string, specName: string): string {
  return join(pluginVolumeDevicesDir(root, csiPluginName), csiBlockStagingDirName, specName);
}

/** `plugins/kubernetes.io/csi/volumeDevices/publish/<spec name>`: holds one publish file per pod. */
export function csiBlockPublishDir(root: string, specName: string): string {
  return join(pluginVolumeDevicesDir(root, csiPluginName), csiBlockPublishDirName, specName);
}

/** `plugins/kubernetes.io/csi/volumeDevices/publish/<spec name>/<pod uid>`: NodePublish target file. */
export function csiBlockPublishPath(root: string, specName: string, podUID: string): string {
  return join(csiBlockPublishDir(root, specName), podUID);
}

/** `plugins/kubernetes.io/csi/volumeDevices/<spec name>/dev`: the CSI block global map path. */
export function csiBlockGlobalMapPath(root: string, specName: string): string {
  return join(csiBlockVolumeDir(root, specName), csiBlockGlobalMapDirName);
}

/** `plugins/kubernetes.io/csi/volumeDevices/<spec name>/data/vol_data.json`. */
export function csiBlockVolumeDataPath(root: string, specName: string): string {
  return join(csiBlockVolumeDir(root, specName), csiBlockDataDirName, csiVolumeDataFileName);
}

/** `plugins_registry`: node-driver-registrar sockets appear here. */
export function pluginsRegistryDir(root: string): string {
  return join(root, pluginsRegistryDirName);
}

/** `plugins_registry/<driver>-reg.sock`. */
export function csiRegistrationSocketPath(root: string, driverName: string): string {
  return join(pluginsRegistryDir(root), `${driverName}${csiRegistrationSocketSuffix}`);
}

/** `plugins/<driver>/csi.sock`: where a CSI driver usually listens. */
export function csiDriverSocketPath(root: string, driverName: string): string {
  return join(pluginDir(root, driverName), csiDriverSocketFileName);
}
