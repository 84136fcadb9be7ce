/**
 * Setting up and tearing down a pod's bind mount of a volume that is mounted once per node (local
 * block devices, rbd, attachable disks): the per-node mount at the global path is shared, and each
 * pod gets `mount --bind <global> <pod dir>` (Kubernetes' diskSetUp / diskTearDown).
 */
import { isHostError } from "../../host/host.ts";
import { cleanupMountPoint } from "../../host/mount/cleanup-mount-point.ts";
import { isNotMountPoint } from "../../host/mount/mount-points.ts";
import { joinMountOptions } from "../util/mount-options.ts";
import type { NodeVolumeContext, VolumeLogger } from "../volume-host.ts";

/** Pod volume directories of mounted volumes. */
export const podMountDirMode = 0o750;

export interface BindMountRequest {
  /** The per-node mount (or, for a local directory PV, the directory itself). */
  globalPath: string;
  /** The pod's volume directory. */
  dir: string;
  readOnly: boolean;
  mountOptions: readonly string[];
  /** Refuse when nothing is mounted at `globalPath` yet (`no device is mounted at <path>`). */
  requireGlobalMount: boolean;
}

async function isMountPoint(node: NodeVolumeContext, path: string): Promise<boolean> {
  try {
    return !(await isNotMountPoint(node.host, path));
  } catch (err) {
    if (isHostError(err, "ENOENT")) return false;
    throw err;
  }
}

/**
 * Bind-mounts the global path into the pod's directory unless it is already mounted there. A failed
 * mount is undone (unmounted if it half-happened, directory removed) and its error returned.
 */
export async function bindMountIntoPod(
  node: NodeVolumeContext,
  logger: VolumeLogger,
  request: BindMountRequest,
): Promise<void> {
  const { globalPath, dir } = request;
  if (request.requireGlobalMount && !(await isMountPoint(node, globalPath))) {
    throw new Error(`no device is mounted at ${globalPath}`);
  }
  if (await isMountPoint(node, dir)) return;
  await node.host.mkdir(dir, podMountDirMode, { recursive: true });
  const options = joinMountOptions(request.mountOptions, request.readOnly ? ["bind", "ro"] : ["bind"]);
  try {
    // A bind mount needs no helper daemon, so it never goes through a systemd scope.
    await node.mounter.mount(globalPath, dir, "", options, { withSystemd: false });
  } catch (err) {
    await undoFailedBindMount(node, logger, dir);
    throw err;
  }
}

async function undoFailedBindMount(node: NodeVolumeContext, logger: VolumeLogger, dir: string): Promise<void> {
  try {
    if (await isMountPoint(node, dir)) {
      await node.mounter.unmount(dir);
      if (await isMountPoint(node, dir)) {
        logger.warning(`${dir} is still mounted, despite call to unmount().  Will try again next sync loop.`);
        return;
      }
    }
    await node.host.rmdir(dir);
  } catch (err) {
    logger.warning(`failed to remove ${dir}: ${err instanceof Error ? err.message : err}`);
  }
}

/** Unmounts the pod's bind mount if present and removes the directory (never recursively). */
export function tearDownPodMount(
  node: NodeVolumeContext,
  dir: string,
  extensiveMountPointCheck: boolean,
): Promise<void> {
  return cleanupMountPoint(node.host, node.mounter, dir, extensiveMountPointCheck);
}
