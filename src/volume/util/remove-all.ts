/**
 * Recursive removal over a Host that never crosses into another filesystem (Kubernetes'
 * removeall.RemoveAllOneFilesystem). A directory that is a mount point is not descended into: it
 * is left with its contents, the rest of the tree is still removed, and the first such refusal is
 * the error (`cannot delete directory <dir>: it is a mount point`). So tearing down a pod directory
 * can never delete the data of a volume still mounted below it.
 *
 * A mount point is a directory on another device than its parent (Kubernetes' st_dev test) or one
 * the mount table lists: a bind mount from the same filesystem keeps the device number, and only
 * the table shows it.
 */
import { posix } from "node:path";
import { type FileStat, type Host, isHostError } from "../../host/host.ts";

/** Directory nesting deeper than this is refused: a bound on the recursion, far above real layouts. */
const maxRemoveAllDepth = 256;

/** Removes `path` and everything below it; an absent path is a success. */
export async function removeAllOneFilesystem(host: Host, path: string): Promise<void> {
  const top = await lstatOrUndefined(host, path);
  if (top === undefined) return;
  if (top.type !== "directory") {
    await unlinkIfPresent(host, path);
    return;
  }
  const mountPoints = new Set((await host.mountInfo()).map((mount) => mount.mountPoint));
  const firstError = await removeDirectory(host, path, mountPoints, 0);
  if (firstError !== undefined) throw firstError;
}

/** Removes what it can below `dir`, then `dir`; returns the first error instead of stopping at it. */
async function removeDirectory(
  host: Host,
  dir: string,
  mountPoints: ReadonlySet<string>,
  depth: number,
): Promise<Error | undefined> {
  if (depth > maxRemoveAllDepth)
    return new Error(`cannot delete directory ${dir}: nested deeper than ${maxRemoveAllDepth}`);
  if (await isMountPoint(host, dir, mountPoints))
    return new Error(`cannot delete directory ${dir}: it is a mount point`);
  let firstError: Error | undefined;
  for (const name of await host.readdir(dir)) {
    const child = posix.join(dir, name);
    const stat = await lstatOrUndefined(host, child);
    if (stat === undefined) continue;
    if (stat.type !== "directory") {
      await unlinkIfPresent(host, child);
      continue;
    }
    const error = await removeDirectory(host, child, mountPoints, depth + 1);
    firstError ??= error;
  }
  if (firstError !== undefined) return firstError;
  try {
    await host.rmdir(dir);
  } catch (err) {
    if (!isHostError(err, "ENOENT")) throw err;
  }
  return undefined;
}

async function isMountPoint(host: Host, dir: string, mountPoints: ReadonlySet<string>): Promise<boolean> {
  if (mountPoints.has(dir)) return true;
  const parent = posix.dirname(dir);
  if (parent === dir) return true;
  const [stat, parentStat] = await Promise.all([host.lstat(dir), host.stat(parent)]);
  return parentStat.dev !== stat.dev;
}

async function lstatOrUndefined(host: Host, path: string): Promise<FileStat | undefined> {
  try {
    return await host.lstat(path);
  } catch (err) {
    if (isHostError(err, "ENOENT")) return undefined;
    throw err;
  }
}

async function unlinkIfPresent(host: Host, path: string): Promise<void> {
  try {
    await host.unlink(path);
  } catch (err) {
    if (!isHostError(err, "ENOENT")) throw err;
  }
}
