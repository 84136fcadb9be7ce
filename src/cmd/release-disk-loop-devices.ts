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
import { deviceTable, fenceableDeviceName, removeDevice } from "../csi/drivers/disk/device-mapper.ts";
import type { Host } from "../host/host.ts";

/** The suffix of a disk's sparse file in the disks directory. */
const diskImageSuffix = ".img";

/** The ids of the disks in `disksDir` (their sparse files' names). */
async function diskIds(disksDir: string): Promise<string[]> {
  try {
    return (await readdir(disksDir))
      .filter((entry) => entry.endsWith(diskImageSuffix))
      .map((entry) => entry.slice(0, -diskImageSuffix.length))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/**
 * Removes the device-mapper device of every disk of `disksDir` on every node of `nodeNames`
 * (`kvol-<node>-<disk>`, fenceable disks), deferred when a fenced one is still held; returns the
 * devices that were there.
 */
export async function releaseDiskDmDevices(
  host: Host,
  disksDir: string,
  nodeNames: readonly string[],
): Promise<string[]> {
  const removed: string[] = [];
  for (const id of await diskIds(disksDir)) {
    for (const nodeName of nodeNames) {
      const name = fenceableDeviceName(id, nodeName);
      if ((await deviceTable(host, name)) === undefined) continue;
      await removeDevice(host, name);
      removed.push(name);
    }
  }
  return removed;
}

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
