/**
 * What the Linux runtime needs from the machine, each missing piece named with how to get it:
 * root, util-linux's unshare, nsenter, mount and pivot_root, a cgroup v2 hierarchy, PID and mount
 * namespaces, and a static busybox to build images from and to finish a container's pivot_root.
 */
import { access } from "node:fs/promises";
import { join } from "node:path";
import { findCgroup2Mount } from "../../host/linux/cgroup.ts";
import { findCommand } from "../../host/linux/command-path.ts";
import { defaultCommandSearchPath } from "../../host/linux/constants.ts";
import { readMountInfo } from "../../host/linux/mount-info-reader.ts";
import { findStaticBusybox, missingStaticBusyboxAdvice } from "../images/busybox-rootfs.ts";
import type { SetupTools } from "./container-setup-script.ts";

type LinuxRuntimeTools = SetupTools & { nsenter: string };

export interface LinuxRuntimeEnvironment {
  tools: LinuxRuntimeTools;
  /** Where the cgroup v2 hierarchy is mounted. */
  cgroup2Mount: string;
}

const utilLinuxAdvice = "(Debian: apt-get install util-linux mount)";
const commandTools: readonly [keyof Omit<LinuxRuntimeTools, "busybox">, string, string][] = [
  ["unshare", "unshare", utilLinuxAdvice],
  ["nsenter", "nsenter", utilLinuxAdvice],
  ["mount", "mount", utilLinuxAdvice],
  ["pivotRoot", "pivot_root", utilLinuxAdvice],
  ["cp", "cp", "(Debian: apt-get install coreutils)"],
];
const namespaceFiles = ["pid", "mnt", "uts"];

/** The tools and cgroup hierarchy found, or every problem found, one sentence each. */
export async function probeLinuxRuntime(): Promise<LinuxRuntimeEnvironment | { problems: string[] }> {
  const problems: string[] = [];
  if (process.getuid?.() !== 0) problems.push("real nodes need root (uid 0): run kvol with sudo or as root");
  const found: Partial<LinuxRuntimeTools> = {};
  for (const [key, name, advice] of commandTools) {
    const path = await findCommand(name, process.env.PATH ?? defaultCommandSearchPath);
    if (path === undefined) problems.push(`${name} is not installed ${advice}`);
    else found[key] = path;
  }
  const busybox = await findStaticBusybox();
  if (busybox === undefined) problems.push(missingStaticBusyboxAdvice);
  else found.busybox = busybox;
  for (const ns of namespaceFiles) {
    try {
      await access(join("/proc/self/ns", ns));
    } catch {
      problems.push(`this kernel has no ${ns} namespaces (/proc/self/ns/${ns} is missing)`);
    }
  }
  const cgroup2Mount = findCgroup2Mount(await readMountInfo());
  if (cgroup2Mount === undefined) {
    problems.push(
      "no cgroup v2 hierarchy is mounted (mount -t cgroup2 none /sys/fs/cgroup, or /sys/fs/cgroup/unified beside cgroup v1)",
    );
  }
  if (problems.length > 0 || cgroup2Mount === undefined) return { problems };
  return { tools: found as LinuxRuntimeTools, cgroup2Mount };
}
