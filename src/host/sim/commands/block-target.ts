/**
 * What disk tools (blkid, mkfs, fsck) open: a block device, or a regular file probed directly (a
 * block-mode backing file). Gives the storage and whether a filesystem on it is mounted.
 */
import type { Errno } from "../../host.ts";
import type { BlockStorage } from "../block-storage.ts";
import { inodeAt } from "../path-walk.ts";
import type { CommandContext } from "./command-context.ts";
import { errnoOf } from "./errno-text.ts";

type BlockTarget =
  | { kind: "opened"; storage: BlockStorage; mounted: boolean; readOnly: boolean }
  | { kind: "failed"; errno: Errno };

export async function openBlockTarget(context: CommandContext, path: string): Promise<BlockTarget> {
  try {
    const location = await context.state.walker.walk(path, "open", context.cancellation, { followLast: true });
    const inode = inodeAt(location);
    if (inode.type === "file") {
      const storage = context.kernel.storageOfFile(inode);
      const mounted = context.state.devices
        .list()
        .some((device) => device.storage === storage && context.kernel.mountsOfDevice(device).length > 0);
      return { kind: "opened", storage, mounted, readOnly: false };
    }
    const device = inode.type === "blockDevice" ? context.state.devices.byDeviceNumber(inode.rdev) : undefined;
    if (device === undefined) return { kind: "failed", errno: inode.type === "blockDevice" ? "ENODEV" : "EINVAL" };
    if (device.gone) return { kind: "failed", errno: "EIO" };
    return {
      kind: "opened",
      storage: device.storage,
      mounted: context.kernel.mountsOfDevice(device).length > 0,
      readOnly: device.readOnly,
    };
  } catch (error) {
    if (context.cancellation.cancelled) throw error;
    return { kind: "failed", errno: errnoOf(error) };
  }
}
