/**
 * What `kvol up --host linux` does last when it stops: the nodes are gone (their mounts with their
 * namespaces), but the disks the attach/detach controller left attached to them still hold loop
 * devices, which the kernel keeps for the whole machine. Stopping releases them, as a machine's
 * power-off does: the disks' records still name the nodes they were attached to, and the next
 * attach or stage makes a new loop device (loop-disk-backend.ts).
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { detachLoopDevices, loopDevicesOf } from "../csi/drivers/common/loop-devices.ts";
import type { Host } from "../host/host.ts";

/** The suffix of a disk's sparse file in the disks directory. */
const diskImageSuffix = ".img";

/** Detaches every loop device over a disk of `disksDir`; returns the disks that had one. */
export async function releaseDiskLoopDevices(host: Host, disksDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(disksDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const released: string[] = [];
  for (const name of names.filter((entry) => entry.endsWith(diskImageSuffix)).sort()) {
    const file = join(disksDir, name);
    if ((await loopDevicesOf(host, file)).length === 0) continue;
    await detachLoopDevices(host, file);
    released.push(file);
  }
  return released;
}
