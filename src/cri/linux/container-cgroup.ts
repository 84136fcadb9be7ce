/**
 * The cgroup v2 directories of containers: `<cgroup2 mount>/<parent>/pod<uid>/<container id>`.
 * Only the v2 hierarchy is used (at /sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid machine);
 * no controller is enabled, so the cgroup serves to find and kill every process of a container.
 */
import { access, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cgroupPids } from "../../host/linux/cgroup.ts";

export { cgroupPids };

export async function makeCgroup(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}

/**
 * Kills every process in the cgroup: cgroup.kill where the kernel has it (5.14 and later), one
 * SIGKILL per listed process otherwise.
 */
export async function killCgroup(dir: string): Promise<void> {
  const killFile = join(dir, "cgroup.kill");
  const hasKill = await access(killFile).then(
    () => true,
    () => false,
  );
  if (hasKill) {
    await writeFile(killFile, "1");
    return;
  }
  for (const pid of await cgroupPids(dir)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }
}

/** Removes the cgroup; false when processes are still leaving it (EBUSY). */
export async function removeCgroup(dir: string): Promise<boolean> {
  try {
    await rmdir(dir);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return true;
    if (code === "EBUSY") return false;
    throw error;
  }
}

/**
 * The node pid of the process that is PID 1 in its own PID namespace, among the cgroup's
 * processes (`NSpid:` in /proc/<pid>/status lists the pid in each namespace, innermost last).
 */
export async function namespaceInitPid(dir: string): Promise<number | undefined> {
  for (const pid of await cgroupPids(dir)) {
    let status: string;
    try {
      status = await readFile(`/proc/${pid}/status`, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    const nsPids = /^NSpid:\s*(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/) ?? [];
    if (nsPids.length >= 2 && nsPids.at(-1) === "1") return pid;
  }
  return undefined;
}
