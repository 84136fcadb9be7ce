/**
 * cgroup v2 directories for daemons that must outlive the agent. Only the cgroup2 hierarchy is used
 * (on hybrid machines it sits at /sys/fs/cgroup/unified beside the v1 controllers, which are never
 * touched). Every directory made here is named `kvol-daemon-<agent pid>-<n>` and removed once empty.
 */
import { readdir, readFile, rmdir } from "node:fs/promises";
import { join } from "node:path";
import type { MountInfo } from "../host.ts";
import { cgroup2FsType, daemonCgroupPrefix } from "./constants.ts";

/** Where the cgroup v2 hierarchy is mounted, or undefined on a machine without one. */
export function findCgroup2Mount(mounts: readonly MountInfo[]): string | undefined {
  return mounts.find((mount) => mount.fsType === cgroup2FsType && mount.root === "/")?.mountPoint;
}

/** The cgroup directory name for the `sequence`-th daemon of the agent with pid `agentPid`. */
export function daemonCgroupName(agentPid: number, sequence: number): string {
  return `${daemonCgroupPrefix}${agentPid}-${sequence}`;
}

/** The pids in a cgroup (empty when the directory is gone). */
export async function cgroupPids(cgroupDir: string): Promise<number[]> {
  let text: string;
  try {
    text = await readFile(join(cgroupDir, "cgroup.procs"), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map(Number);
}

/**
 * Removes a daemon cgroup if no process is left in it. Returns whether it is gone; a cgroup that
 * still holds processes (EBUSY) stays for a later sweep.
 */
export async function removeCgroupIfEmpty(cgroupDir: string): Promise<boolean> {
  try {
    await rmdir(cgroupDir);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return true;
    if (code === "EBUSY") return false;
    throw error;
  }
}

/**
 * Removes the empty daemon cgroups left by agents that are no longer running (their daemons died
 * after the agent did, so nobody was there to remove them). Returns the directories removed.
 */
export async function sweepOrphanDaemonCgroups(
  cgroup2Mount: string,
  isAgentAlive: (pid: number) => Promise<boolean>,
): Promise<string[]> {
  const removed: string[] = [];
  for (const entry of await readdir(cgroup2Mount, { withFileTypes: true })) {
    const agentPid = agentPidOf(entry.name);
    if (!entry.isDirectory() || agentPid === undefined || (await isAgentAlive(agentPid))) continue;
    const dir = join(cgroup2Mount, entry.name);
    if ((await cgroupPids(dir)).length === 0 && (await removeCgroupIfEmpty(dir))) removed.push(dir);
  }
  return removed;
}

function agentPidOf(cgroupName: string): number | undefined {
  const match = new RegExp(`^${daemonCgroupPrefix}(\\d+)-\\d+$`).exec(cgroupName);
  return match === null ? undefined : Number(match[1]);
}
