/**
 * Mounting something at a pod's volume directory, once: an NFS export, or the bind mount of a
 * volume mounted once per node. What both do the same way (Kubernetes' nfsMounter.SetUpAt and
 * diskSetUp): skip a directory that is already a mount point, create it, mount, and undo a failed
 * mount so the next sync starts clean.
 */
import { isHostError } from "../../host/host.ts";
import { isNotMountPoint } from "../../host/mount/mount-points.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { NodeVolumeContext, VolumeLogger } from "../volume-host.ts";

/** Pod volume directories of mounted volumes: private to the kubelet and the pod's group. */
const podMountDirMode = 0o750;

export interface PodMountRequest {
  /** What to mount (`server:/export`, or the global path to bind). */
  source: string;
  /** The pod's volume directory. */
  dir: string;
  fsType: string;
  options: readonly string[];
  /** False for a bind mount, which needs no helper daemon and so no systemd scope. */
  withSystemd: boolean;
  /** Starts the warning logged when undoing a failed mount fails too (`failed to remove <dir>`). */
  cleanupFailureContext: string;
}

/**
 * The exact mount-table check, with an absent path counting as "not mounted": stat of an NFS
 * directory may be refused (root_squash), and a bind mount of a directory on the same disk keeps
 * its device id, so comparing devices would be wrong for both.
 */
export async function isMountPoint(node: NodeVolumeContext, path: string): Promise<boolean> {
  try {
    return !(await isNotMountPoint(node.host, path));
  } catch (err) {
    if (isHostError(err, "ENOENT")) return false;
    throw err;
  }
}

/**
 * The cheap device-comparison check (IsLikelyNotMountPoint), with an absent path counting as "not
 * mounted"; other stat errors (a corrupted mount's ENOTCONN) are thrown so the caller fails visibly.
 */
export async function isLikelyMountPoint(node: NodeVolumeContext, path: string): Promise<boolean> {
  try {
    return !(await node.mounter.isLikelyNotMountPoint(path));
  } catch (err) {
    if (isHostError(err, "ENOENT")) return false;
    throw err;
  }
}

/** Mounts `source` at the pod's directory unless something is mounted there already. */
export async function mountIntoPodDir(
  node: NodeVolumeContext,
  logger: VolumeLogger,
  request: PodMountRequest,
): Promise<void> {
  const { dir } = request;
  if (await isMountPoint(node, dir)) return;
  await node.host.mkdir(dir, podMountDirMode, { recursive: true });
  try {
    await node.mounter.mount(request.source, dir, request.fsType, request.options, {
      withSystemd: request.withSystemd,
    });
  } catch (err) {
    await undoFailedMount(node, logger, request);
    throw err;
  }
}

/**
 * A mount that failed may still have appeared (mount.nfs gave up after the kernel mounted): unmount
 * it, then remove the directory. Problems here are logged: the mount error is what the user needs
 * to see.
 */
async function undoFailedMount(node: NodeVolumeContext, logger: VolumeLogger, request: PodMountRequest): Promise<void> {
  const { dir } = request;
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
    logger.warning(`${request.cleanupFailureContext}: ${errorMessage(err)}`);
  }
}
