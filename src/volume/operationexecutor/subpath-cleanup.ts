/**
 * Removes a pod volume's subPath bind mounts before the volume is torn down (Kubernetes'
 * CleanSubPaths): `pods/<uid>/volume-subpaths/<volume>/<container>/<index>` are unmounted and
 * their directories removed (and `volume-subpaths` itself once empty), so TearDown does not meet a
 * busy mount it did not make.
 */
import { posix } from "node:path";
import { isHostError } from "../../host/host.ts";
import { cleanupMountPoint } from "../../host/mount/cleanup-mount-point.ts";
import { podVolumeSubpathsDir } from "../paths.ts";
import type { NodeVolumeContext } from "../volume-host.ts";

async function listOrNone(node: NodeVolumeContext, dir: string): Promise<string[]> {
  try {
    return await node.host.readdir(dir);
  } catch (err) {
    if (isHostError(err, "ENOENT")) return [];
    throw err;
  }
}

async function removeIfEmpty(node: NodeVolumeContext, dir: string): Promise<void> {
  if ((await listOrNone(node, dir)).length > 0) return;
  try {
    await node.host.rmdir(dir);
  } catch (err) {
    if (!isHostError(err, "ENOENT")) throw err;
  }
}

export async function cleanSubPaths(node: NodeVolumeContext, podUID: string, volumeName: string): Promise<void> {
  const volumeDir = posix.join(podVolumeSubpathsDir(node.rootDir, podUID), volumeName);
  for (const container of await listOrNone(node, volumeDir)) {
    const containerDir = posix.join(volumeDir, container);
    for (const index of await listOrNone(node, containerDir)) {
      await cleanupMountPoint(node.host, node.mounter, posix.join(containerDir, index), true);
    }
    await removeIfEmpty(node, containerDir);
  }
  await removeIfEmpty(node, volumeDir);
  // The last volume's cleanup takes `volume-subpaths` too: the orphaned pod directory check waits for it.
  await removeIfEmpty(node, podVolumeSubpathsDir(node.rootDir, podUID));
}
