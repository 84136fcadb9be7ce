/**
 * Recursive removal over a Host that never crosses into another filesystem (Kubernetes'
 * removeall.RemoveAllOneFilesystem). A directory that is still a mount point is refused instead of
 * emptied, so tearing down a pod directory can never delete the data of a volume still mounted
 * below it.
 */
import { posix } from "node:path";
import { type FileStat, type Host, isHostError } from "../../host/host.ts";

/** Directory nesting deeper than this is refused: a bound on the recursion, far above real layouts. */
export const maxRemoveAllDepth = 256;

/** Removes `path` and everything below it; an absent path is a success. */
export async function removeAllOneFilesystem(host: Host, path: string): Promise<void> {
  const top = await lstatOrUndefined(host, path);
  if (top === undefined) return;
  if (top.type !== "directory") {
    await unlinkIfPresent(host, path);
    return;
  }
  await removeDirectory(host, path, top.dev, 0);
}

async function removeDirectory(host: Host, dir: string, dev: number, depth: number): Promise<void> {
  if (depth > maxRemoveAllDepth)
    throw new Error(`cannot delete directory ${dir}: nested deeper than ${maxRemoveAllDepth}`);
  if (await isMountPoint(host, dir, dev)) throw new Error(`cannot delete directory ${dir}: it is a mount point`);
  for (const name of await host.readdir(dir)) {
    const child = posix.join(dir, name);
    const stat = await lstatOrUndefined(host, child);
    if (stat === undefined) continue;
    if (stat.type === "directory") await removeDirectory(host, child, dev, depth + 1);
    else await unlinkIfPresent(host, child);
  }
  try {
    await host.rmdir(dir);
  } catch (err) {
    if (!isHostError(err, "ENOENT")) throw err;
  }
}

/** A directory on another device than the tree's top, or the top itself mounted over its parent. */
async function isMountPoint(host: Host, dir: string, treeDev: number): Promise<boolean> {
  const stat = await host.lstat(dir);
  if (stat.dev !== treeDev) return true;
  const parent = posix.dirname(dir);
  if (parent === dir) return true;
  const parentStat = await host.stat(parent);
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
