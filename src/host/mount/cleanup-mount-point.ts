/**
 * mount-utils' CleanupMountPoint: unmount a volume path if it is mounted and remove the directory.
 * Removal is rmdir (or unlink for a file target), never recursive, so data below a mount that is
 * still there is never deleted. A corrupted mount (dead FUSE daemon: ENOTCONN) cannot be stat'ed,
 * so it is unmounted without any mount-point check first.
 */
import { type Host, isHostError } from "../host.ts";
import { isCorruptedMnt, isLikelyNotMountPoint, isNotMountPoint, pathExists } from "./mount-points.ts";
import type { Mounter } from "./mounter.ts";

interface CleanupOptions {
  /** Use the exact, mount-table check (NFS: stat may be denied by root_squash) instead of comparing devices. */
  extensiveMountPointCheck: boolean;
  /** When set, unmount with this deadline and then `umount -f` (CleanupMountWithForce). */
  forceUnmountAfterMs?: number;
}

/** Unmounts `path` if needed and removes it; an absent path is a success with a warning. */
export async function cleanupMountPoint(host: Host, mounter: Mounter, path: string, extensive: boolean): Promise<void> {
  await cleanupMount(host, mounter, path, { extensiveMountPointCheck: extensive });
}

/** CleanupMountPoint whose unmount falls back to `umount -f` after `unmountTimeoutMs`. */
export async function cleanupMountWithForce(
  host: Host,
  mounter: Mounter,
  path: string,
  extensive: boolean,
  unmountTimeoutMs: number,
): Promise<void> {
  await cleanupMount(host, mounter, path, {
    extensiveMountPointCheck: extensive,
    forceUnmountAfterMs: unmountTimeoutMs,
  });
}

async function cleanupMount(host: Host, mounter: Mounter, path: string, options: CleanupOptions): Promise<void> {
  const existence = await pathExists(host, path);
  if (!existence.exists && existence.error === undefined) {
    mounter.logger.warning(`Mount cleanup skipped because path does not exist: ${path}`);
    return;
  }
  const corrupted = isCorruptedMnt(existence.error);
  if (existence.error !== undefined && !corrupted) throw new Error(`Error checking path: ${existence.error.message}`);

  if (!corrupted && !(await mounter.canSafelySkipMountPointCheck())) {
    if (await removePathIfNotMountPoint(host, mounter, path, options)) return;
  }
  if (options.forceUnmountAfterMs === undefined) await mounter.unmount(path);
  else await mounter.unmountWithForce(path, options.forceUnmountAfterMs);

  if (await removePathIfNotMountPoint(host, mounter, path, options)) return;
  throw new Error(`failed to cleanup mount point ${path}`);
}

/** Removes `path` when it is not a mount point; returns whether it was not one (a vanished path counts). */
async function removePathIfNotMountPoint(
  host: Host,
  mounter: Mounter,
  path: string,
  options: CleanupOptions,
): Promise<boolean> {
  let notMountPoint: boolean;
  try {
    notMountPoint = options.extensiveMountPointCheck
      ? await isNotMountPoint(host, path)
      : await isLikelyNotMountPoint(host, path);
  } catch (error) {
    if (isHostError(error, "ENOENT")) return true;
    throw error;
  }
  if (!notMountPoint) return false;
  mounter.logger.warning(`Warning: "${path}" is not a mountpoint, deleting`);
  await removePath(host, path);
  return true;
}

/** os.Remove: rmdir for a directory (fails when not empty), unlink for anything else. */
async function removePath(host: Host, path: string): Promise<void> {
  try {
    await host.rmdir(path);
  } catch (error) {
    if (!isHostError(error, "ENOTDIR")) throw error;
    await host.unlink(path);
  }
}
