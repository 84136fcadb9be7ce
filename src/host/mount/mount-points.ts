/**
 * Mount-point and corrupted-mount checks, as kubernetes/mount-utils does them (spec §7):
 * `IsLikelyNotMountPoint` (cheap, compares device ids), `IsNotMountPoint` (exact, reads the mount
 * table), `PathExists`, `IsCorruptedMnt` and `GetMountRefs`.
 */
import { posix } from "node:path";
import { type Errno, type Host, HostError, isHostError, type MountInfo } from "../host.ts";
import { evalSymlinks } from "./eval-symlinks.ts";
import { discardingMountLogger, type MountLogger } from "./logger.ts";

/** Errnos that mean "a mount is here but its backend is gone" (dead FUSE daemon, stale NFS handle, ...). */
const corruptedMountErrnos: readonly Errno[] = [
  "ENOTCONN",
  "ESTALE",
  "EIO",
  "EACCES",
  "EHOSTDOWN",
  "EWOULDBLOCK",
  "ENODEV",
];

/** True when `error` is a HostError whose errno marks a corrupted mount. */
export function isCorruptedMnt(error: unknown): boolean {
  return error instanceof HostError && corruptedMountErrnos.includes(error.code);
}

interface PathExistence {
  exists: boolean;
  /** Set when stat failed with anything but ENOENT; with `exists` true it is a corrupted mount. */
  error?: Error;
}

/** stat OK → exists; ENOENT → absent; a corrupted-mount errno → exists with that error; else the error. */
export async function pathExists(host: Host, path: string): Promise<PathExistence> {
  try {
    await host.stat(path);
    return { exists: true };
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    if (isHostError(error, "ENOENT")) return { exists: false };
    return { exists: isCorruptedMnt(error), error };
  }
}

/**
 * True when `path` is probably not a mount point: it sits on the same device as its parent. Bind
 * mounts within one filesystem look like plain directories here; use isNotMountPoint for those.
 * stat errors (ENOENT, ENOTCONN, ...) are thrown to the caller.
 */
export async function isLikelyNotMountPoint(host: Host, path: string): Promise<boolean> {
  const stat = await host.stat(path);
  const parentStat = await host.stat(parentOf(path));
  return stat.dev === parentStat.dev;
}

/**
 * The exact check: true unless `path` (symlinks resolved) is a mount point in the mount table. A
 * failing stat other than ENOENT (root_squash denying it, for one) defers to the mount table.
 */
export async function isNotMountPoint(host: Host, path: string): Promise<boolean> {
  let likelyNotMountPoint: boolean;
  try {
    likelyNotMountPoint = await isLikelyNotMountPoint(host, path);
  } catch (error) {
    if (isHostError(error, "ENOENT")) throw error;
    // stat may be refused while the mount table still knows the answer.
    likelyNotMountPoint = true;
  }
  if (!likelyNotMountPoint) return false;
  const resolvedPath = await evalSymlinks(host, path);
  const mounts = await host.mountInfo();
  return !mounts.some((mount) => mount.mountPoint === resolvedPath);
}

/**
 * The other mount points showing the same filesystem subtree as `path` (same device and root), e.g.
 * the pod bind mounts of a global mount. An absent or corrupted path has none.
 */
export async function getMountRefs(
  host: Host,
  path: string,
  logger: MountLogger = discardingMountLogger,
): Promise<string[]> {
  const existence = await pathExists(host, path);
  if (!existence.exists) return [];
  if (existence.error !== undefined) {
    logger.warning(`GetMountRefs found corrupted mount at ${path}, treating as unmounted path`);
    return [];
  }
  const resolvedPath = await evalSymlinks(host, path);
  return searchMountPoints(resolvedPath, await host.mountInfo());
}

/**
 * Every mount point, other than the mount holding `hostSource`, that shows the same device and root
 * path. Searched from the newest mount back, since a later mount may cover an earlier one.
 */
export function searchMountPoints(hostSource: string, mounts: readonly MountInfo[]): string[] {
  const holder = [...mounts].reverse().find((mount) => isPathWithin(hostSource, mount.mountPoint));
  if (holder === undefined) throw new Error(`failed to get root path and major:minor for ${hostSource}`);
  const rootPath = posix.join(holder.root, hostSource.slice(holder.mountPoint.length));
  return mounts
    .filter((mount) => mount.id !== holder.id && mount.root === rootPath && mount.majorMinor === holder.majorMinor)
    .map((mount) => mount.mountPoint);
}

/** True when `path` is `base` or lies below it. */
export function isPathWithin(path: string, base: string): boolean {
  const relative = posix.relative(base, path);
  return relative === "" || (relative !== ".." && !relative.startsWith("../") && !posix.isAbsolute(relative));
}

function parentOf(path: string): string {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return posix.dirname(trimmed);
}
