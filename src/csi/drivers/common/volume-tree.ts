/**
 * Walks over a volume's directory tree through the Host: how much it holds (NodeGetVolumeStats) and
 * deleting it (DeleteVolume). Neither follows symbolic links nor crosses into another filesystem,
 * so a mount below the volume is never counted and never emptied; every walk is bounded.
 */
import { posix } from "node:path";
import type { FileStat, Host } from "../../../host/host.ts";

interface TreeUsage {
  usedBytes: number;
  /** Files, directories and links, the root included. */
  inodes: number;
}

interface Visit {
  path: string;
  stat: FileStat;
}

/** Bytes and inodes under `root` (the root included). */
export async function treeUsage(host: Host, root: string, maxEntries: number): Promise<TreeUsage> {
  let usedBytes = 0;
  let inodes = 0;
  for await (const visit of walkPreOrder(host, root, maxEntries)) {
    inodes++;
    if (visit.stat.type === "file") usedBytes += visit.stat.size;
  }
  return { usedBytes, inodes };
}

/**
 * Deletes `root` and everything below it, deepest first. Throws, having deleted only what it
 * reached, when something below is another filesystem (a mount point: unmount it first).
 */
export async function removeTree(host: Host, root: string, maxEntries: number): Promise<void> {
  const visits: Visit[] = [];
  for await (const visit of walkPreOrder(host, root, maxEntries)) visits.push(visit);
  const rootDev = visits[0]?.stat.dev;
  const foreign = visits.find((visit) => visit.stat.dev !== rootDev);
  if (foreign !== undefined) {
    throw new Error(`${foreign.path} is a mount point inside ${root}; unmount it before deleting the volume`);
  }
  for (const visit of visits.reverse()) {
    if (visit.stat.type === "directory") await host.rmdir(visit.path);
    else await host.unlink(visit.path);
  }
}

/** Every entry under `root`, parents before children; directories on other devices are not entered. */
async function* walkPreOrder(host: Host, root: string, maxEntries: number): AsyncGenerator<Visit> {
  const rootStat = await host.lstat(root);
  const pending: Visit[] = [{ path: root, stat: rootStat }];
  let visited = 0;
  while (pending.length > 0) {
    const visit = pending.pop() as Visit;
    visited++;
    if (visited > maxEntries) {
      throw new Error(`${root} holds more than ${maxEntries} entries, more than a volume walk may visit`);
    }
    yield visit;
    if (visit.stat.type !== "directory" || visit.stat.dev !== rootStat.dev) continue;
    const names = (await host.readdir(visit.path)).sort().reverse();
    for (const name of names) {
      const path = posix.join(visit.path, name);
      pending.push({ path, stat: await host.lstat(path) });
    }
  }
}
