/**
 * Which processes keep a mount busy, as `fuser -m` and `lsof +f --` find them: every process in
 * /proc whose working directory, root directory, an open file or a mapped file (a running binary,
 * a shared library) lies at or under the mount point. Paths are compared as the kernel prints them
 * for the reader's mount namespace, so a holder in the node's namespace is found by the node agent
 * that shares it; a process the reader may not inspect (gone meanwhile, or another user's without
 * privilege) is passed over, as fuser passes over it.
 */
import { readdir, readFile, readlink } from "node:fs/promises";
import type { MountHolder } from "../host.ts";

const procDir = "/proc";
/** The kernel's suffix on the path of an unlinked file that is still open or mapped. */
const deletedSuffix = " (deleted)";
/** /proc/PID/maps: address, perms, offset, dev, inode, then the path (which may hold spaces). */
const mapsPathField = /^\S+\s+\S+\s+\S+\s+\S+\s+\d+\s+(\/.*)$/;

function isUnder(path: string, mountPoint: string): boolean {
  const clean = path.endsWith(deletedSuffix) ? path.slice(0, -deletedSuffix.length) : path;
  return clean === mountPoint || clean.startsWith(mountPoint === "/" ? "/" : `${mountPoint}/`);
}

/** ENOENT, ESRCH (the process exited meanwhile) and EACCES (not ours to inspect) mean "not found". */
function isGoneOrHidden(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ESRCH" || code === "EACCES" || code === "EPERM";
}

async function orUndefined<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (isGoneOrHidden(error)) return undefined;
    throw error;
  }
}

async function holdsByLink(pidDir: string, mountPoint: string): Promise<boolean> {
  for (const link of ["cwd", "root"]) {
    const target = await orUndefined(readlink(`${pidDir}/${link}`));
    if (target !== undefined && isUnder(target, mountPoint)) return true;
  }
  const fds = (await orUndefined(readdir(`${pidDir}/fd`))) ?? [];
  for (const fd of fds) {
    const target = await orUndefined(readlink(`${pidDir}/fd/${fd}`));
    if (target !== undefined && isUnder(target, mountPoint)) return true;
  }
  return false;
}

async function holdsByMapping(pidDir: string, mountPoint: string): Promise<boolean> {
  const maps = await orUndefined(readFile(`${pidDir}/maps`, "utf8"));
  if (maps === undefined) return false;
  for (const line of maps.split("\n")) {
    const path = mapsPathField.exec(line)?.[1];
    if (path !== undefined && isUnder(path, mountPoint)) return true;
  }
  return false;
}

/** The command line (NUL-separated argv, joined with spaces), or `[comm]` for a process without one. */
async function commandOf(pidDir: string): Promise<string | undefined> {
  const cmdline = await orUndefined(readFile(`${pidDir}/cmdline`, "utf8"));
  if (cmdline === undefined) return undefined;
  const argv = cmdline.split("\0").filter((arg) => arg !== "");
  if (argv.length > 0) return argv.join(" ");
  const comm = await orUndefined(readFile(`${pidDir}/comm`, "utf8"));
  return comm === undefined ? undefined : `[${comm.trim()}]`;
}

/** The processes holding `mountPoint` (an absolute path without a trailing slash), in pid order. */
export async function findMountHolders(path: string): Promise<MountHolder[]> {
  const mountPoint = path.length > 1 ? path.replace(/\/+$/, "") : path;
  const pids = (await readdir(procDir))
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .sort((a, b) => a - b);
  const holders: MountHolder[] = [];
  for (const pid of pids) {
    const pidDir = `${procDir}/${pid}`;
    if (!(await holdsByLink(pidDir, mountPoint)) && !(await holdsByMapping(pidDir, mountPoint))) continue;
    const command = await commandOf(pidDir);
    if (command !== undefined) holders.push({ pid, command });
  }
  return holders;
}
