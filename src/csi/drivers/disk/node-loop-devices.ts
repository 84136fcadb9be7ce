/**
 * A fenceable disk's loop devices, one per node: each is bound over a hard link of the disk's file
 * made for its node (`<disksDir>/nodes/<node>/<id>.img`), so the kernel's record of the device's
 * backing file says which node's device it is, and fencing one node leaves the others' devices
 * alone. `losetup -j` matches the file's inode, so it lists every node's devices of the disk;
 * their backing paths tell them apart (with " (deleted)" after a path whose link is gone).
 */
import type { Host } from "../../../host/host.ts";

/** The subdirectory of the disks directory that holds each node's links. */
export const nodeLinksDirName = "nodes";
const deletedSuffix = " (deleted)";

/** Node names are DNS subdomains: letters, digits, "-" and "." (never a path of their own). */
const nodeNamePattern = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/;

/** The directory of node `nodeName`'s links. */
export function nodeLinksDir(disksDir: string, nodeName: string): string {
  if (!nodeNamePattern.test(nodeName) || nodeName.includes("..")) {
    throw new Error(
      `node name ${JSON.stringify(nodeName)} cannot name a directory of disk links: it must be letters, digits, "-" and "."`,
    );
  }
  return `${disksDir}/${nodeLinksDirName}/${nodeName}`;
}

export interface BoundLoopDevice {
  readonly device: string;
  /** The path the device was bound over, as the kernel reports it now (" (deleted)" removed). */
  readonly backingFile: string;
}

/** Every loop device over `file`'s inode, with the path each was bound over (`losetup -j`). */
export async function loopDevicesOverInode(host: Host, file: string): Promise<BoundLoopDevice[]> {
  const result = await host.run("losetup", ["-j", file]);
  if (result.exitCode !== 0) {
    throw new Error(`losetup -j ${file} failed with exit status ${result.exitCode}: ${result.output.trim()}`);
  }
  const devices: BoundLoopDevice[] = [];
  for (const line of result.output.split("\n")) {
    // `/dev/loop3: [65024]:4276475 (/data/disks/nodes/node-1/pvc-1.img)`, `, offset N` after a fenced one.
    const match = /^(\/dev\/loop\d+): \[[^\]]*\]:\d+ \((.*?)\)(?:, (?:offset|sizelimit) \d+)*$/.exec(line.trim());
    if (match?.[1] === undefined || match[2] === undefined) continue;
    const path = match[2];
    devices.push({
      device: match[1],
      backingFile: path.endsWith(deletedSuffix) ? path.slice(0, -deletedSuffix.length) : path,
    });
  }
  return devices;
}

/**
 * The loop devices over `image` that were bound over node link `link`. Compared by the link's last
 * three components (`nodes/<node>/<id>.img`): the kernel reports the path with symlinks resolved,
 * and the inode already says which disk it is.
 */
export async function nodeLoopDevices(host: Host, image: string, link: string): Promise<string[]> {
  const tail = `/${link.split("/").slice(-3).join("/")}`;
  return (await loopDevicesOverInode(host, image))
    .filter((bound) => bound.backingFile.endsWith(tail))
    .map((bound) => bound.device);
}
