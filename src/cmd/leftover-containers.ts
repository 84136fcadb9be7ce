/**
 * Containers a previous agent of this node left running (it was killed with SIGKILL, or the machine
 * kept them while it was down). This agent cannot adopt them yet: it kills them, removes their
 * cgroups and their writable layers, and the kubelet starts the pods' containers again. Without
 * this they would run on unseen, beside the new ones, holding their volumes.
 */
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { killCgroup, removeCgroup } from "../cri/linux/container-cgroup.ts";
import { cgroupPids } from "../host/linux/cgroup.ts";
import { readMountInfo } from "../host/linux/mount-info-reader.ts";
import { isPathWithin } from "../host/mount/mount-points.ts";
import type { Clock } from "../runtime/clock.ts";

/** Polls of a killed cgroup before giving up on it being empty (20 ms apart: 10 s). */
const emptyPollAttempts = 500;
const emptyPollMs = 20;

async function subdirs(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** Kills every process below `cgroupDir` and removes the cgroups under it; returns how many containers were found. */
async function removeCgroupsBelow(cgroupDir: string, clock: Clock): Promise<number> {
  let containers = 0;
  for (const pod of await subdirs(cgroupDir)) {
    const podDir = join(cgroupDir, pod);
    for (const container of await subdirs(podDir)) {
      const dir = join(podDir, container);
      containers += 1;
      await killCgroup(dir);
      for (let attempt = 0; attempt < emptyPollAttempts && (await cgroupPids(dir)).length > 0; attempt++) {
        await clock.sleep(emptyPollMs);
      }
      if (!(await removeCgroup(dir))) throw new Error(`cgroup ${dir} still holds processes after SIGKILL`);
    }
    if (!(await removeCgroup(podDir))) throw new Error(`cgroup ${podDir} still holds processes`);
  }
  return containers;
}

/** Removes what a previous agent left; returns the number of containers killed. */
export async function removeLeftoverContainers(
  cgroupDir: string,
  containersDir: string,
  clock: Clock,
): Promise<number> {
  const killed = await removeCgroupsBelow(cgroupDir, clock);
  const mounts = await readMountInfo();
  for (const id of await subdirs(containersDir)) {
    const dir = join(containersDir, id);
    // A layer still mounted here (by hand, or by a namespace that shares this one) is left alone.
    if (mounts.some((mount) => isPathWithin(mount.mountPoint, dir))) continue;
    await rm(dir, { recursive: true, force: true });
  }
  return killed;
}
