/**
 * What the pods directory on the node says about volumes (reconstruct_common.go's
 * getVolumesFromPodDir, kubelet_volumes.go's getPodVolumePathListFromDisk): after a kubelet
 * restart this is the only memory of which volumes were mounted for which pod.
 *
 *   <root>/pods/<uid>/volumes/<escaped plugin>/<spec name>         filesystem volumes
 *   <root>/pods/<uid>/volumeDevices/<escaped plugin>/<spec name>   raw block volumes
 */
import { type Host, isHostError } from "../../host/host.ts";
import type { Mounter } from "../../host/mount/mounter.ts";
import { podsDir, podVolumeDevicesDir, podVolumesDir, unescapeQualifiedName } from "../../volume/paths.ts";
import type { VolumeMode } from "../../volume/spec.ts";

/** One volume directory found under a pod. */
export interface PodVolumeDir {
  /** The pod UID (the directory name under `pods/`). */
  podUID: string;
  /** The spec name (the directory's own name). */
  volumeSpecName: string;
  /** The full path of the directory. */
  volumePath: string;
  /** The plugin name, unescaped (`kubernetes.io~nfs` → `kubernetes.io/nfs`). */
  pluginName: string;
  volumeMode: VolumeMode;
}

/** Entries of `dir`, or [] when it does not exist (a pod without block volumes has no volumeDevices/). */
async function readdirIfPresent(host: Host, dir: string): Promise<string[]> {
  try {
    return await host.readdir(dir);
  } catch (err) {
    if (isHostError(err, "ENOENT") || isHostError(err, "ENOTDIR")) return [];
    throw err;
  }
}

/**
 * `posix.join(dir, name)` for a normalised `dir` and a name readdir gave (no slash, never `.` or
 * `..`), which needs no normalising.
 */
function childPath(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

async function isDirectory(host: Host, path: string): Promise<boolean> {
  try {
    return (await host.lstat(path)).type === "directory";
  } catch (err) {
    if (isHostError(err, "ENOENT")) return false;
    throw err;
  }
}

/** The pod UIDs that have a directory under `<root>/pods`, sorted. */
export async function listPodsFromDisk(host: Host, rootDir: string): Promise<string[]> {
  const uids: string[] = [];
  const dir = podsDir(rootDir);
  // The housekeeping pass asks this every 2 s: a directory entry's name joins without normalising.
  for (const name of await readdirIfPresent(host, dir)) {
    if (await isDirectory(host, childPath(dir, name))) uids.push(name);
  }
  return uids.sort();
}

/** Every volume directory of one pod, filesystem first, in a stable order. */
export async function podVolumeDirs(host: Host, rootDir: string, podUID: string): Promise<PodVolumeDir[]> {
  const found: PodVolumeDir[] = [];
  const modes: Array<[VolumeMode, string]> = [
    ["Filesystem", podVolumesDir(rootDir, podUID)],
    ["Block", podVolumeDevicesDir(rootDir, podUID)],
  ];
  for (const [volumeMode, volumesDir] of modes) {
    for (const escapedPlugin of (await readdirIfPresent(host, volumesDir)).sort()) {
      const pluginDir = childPath(volumesDir, escapedPlugin);
      for (const volumeSpecName of (await readdirIfPresent(host, pluginDir)).sort()) {
        found.push({
          podUID,
          volumeSpecName,
          volumePath: childPath(pluginDir, volumeSpecName),
          pluginName: unescapeQualifiedName(escapedPlugin),
          volumeMode,
        });
      }
    }
  }
  return found;
}

/** Every volume directory of every pod on disk. */
export async function volumesFromPodsDir(host: Host, rootDir: string): Promise<PodVolumeDir[]> {
  const found: PodVolumeDir[] = [];
  for (const podUID of await listPodsFromDisk(host, rootDir))
    found.push(...(await podVolumeDirs(host, rootDir, podUID)));
  return found;
}

/**
 * The pod's filesystem volume paths that are still mount points (getMountedVolumePathListFromDisk).
 * Throws when a path cannot be checked (a dead FUSE mount): callers must then assume it is mounted.
 */
export async function mountedVolumePathsFromDisk(
  host: Host,
  mounter: Mounter,
  rootDir: string,
  podUID: string,
): Promise<string[]> {
  const mounted: string[] = [];
  for (const volume of await podVolumeDirs(host, rootDir, podUID)) {
    if (volume.volumeMode !== "Filesystem") continue;
    if (!(await mounter.isLikelyNotMountPoint(volume.volumePath))) mounted.push(volume.volumePath);
  }
  return mounted;
}
