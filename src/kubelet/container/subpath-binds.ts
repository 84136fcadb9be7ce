/**
 * subPath mounts, as the kubelet prepares them (Kubernetes' PrepareSafeSubpath): before a container
 * starts, `<volume path>/<subPath>` is bind-mounted on the node at
 * `pods/<uid>/volume-subpaths/<volume>/<container>/<mount index>`, and the container gets that bind.
 * A bind mount holds the inode the path named at that moment, so a subPath never follows later
 * changes of the path: a configMap, secret, projected or downwardAPI update swaps the volume's
 * `..data` symlink to a new directory, and the subPath keeps showing the old file (k/k#50345),
 * while the whole-volume mount, which holds the volume directory itself, sees the new one.
 *
 * A container restart reuses the bind when the path still names the same file, and binds again
 * when it does not (checkSubPathFileEqual). The volume's unmount removes the binds (CleanSubPaths,
 * volume/operationexecutor/subpath-cleanup.ts).
 */
import { posix } from "node:path";
import { type Host, isHostError } from "../../host/host.ts";
import { isNotMountPoint } from "../../host/mount/mount-points.ts";
import type { Mounter } from "../../host/mount/mounter.ts";
import { podVolumeSubpathDir } from "../../volume/paths.ts";

/** Permissions of the subPath bind targets Kubernetes creates (`os.MkdirAll(…, 0750)`, files 0640). */
const subpathDirMode = 0o750;
const subpathFileMode = 0o640;

interface SubpathBindOptions {
  host: Host;
  mounter: Mounter;
  rootDir: string;
  podUID: string;
  containerName: string;
}

/** Binds `source` (a path inside the volume `volumeName`) for the mount at `mountIndex`; returns the bind. */
export async function bindSubpath(
  options: SubpathBindOptions,
  volumeName: string,
  mountIndex: number,
  source: string,
): Promise<string> {
  const { host, mounter } = options;
  const target = podVolumeSubpathDir(options.rootDir, options.podUID, volumeName, options.containerName, mountIndex);
  const sourceStat = await host.stat(source);
  if (await isMountPoint(host, target)) {
    const bound = await host.stat(target);
    if (bound.dev === sourceStat.dev && bound.ino === sourceStat.ino) return target;
    // The path names another file now (the volume was updated): the restarted container gets it.
    await mounter.unmount(target);
  }
  await host.mkdir(posix.dirname(target), subpathDirMode, { recursive: true });
  if (!(await exists(host, target))) {
    if (sourceStat.type === "directory") await host.mkdir(target, subpathDirMode);
    else await host.writeFile(target, "", subpathFileMode);
  }
  await mounter.mount(source, target, "", ["bind"], { withSystemd: false });
  return target;
}

async function exists(host: Host, path: string): Promise<boolean> {
  try {
    await host.lstat(path);
    return true;
  } catch (error) {
    if (isHostError(error, "ENOENT")) return false;
    throw error;
  }
}

async function isMountPoint(host: Host, path: string): Promise<boolean> {
  if (!(await exists(host, path))) return false;
  return !(await isNotMountPoint(host, path));
}
