/**
 * Setting up a loop device over a regular file or a block device node, shared by losetup(8) and by
 * mount(8), which creates one by itself when asked to mount a file. Kubernetes' block-mode volumes
 * put a loop device on the bind-mounted device file, so the loop device reads the same storage.
 */
import { HostError } from "../../host.ts";
import type { BlockDevice } from "../devices.ts";
import { filesystemOf, inodeAt } from "../path-walk.ts";
import type { CommandContext } from "./command-context.ts";

/** Attaches the next free /dev/loopN to `filePath`; throws the HostError losetup would report. */
export async function setUpLoopDevice(
  context: CommandContext,
  filePath: string,
  readOnly: boolean,
): Promise<BlockDevice> {
  const location = await context.state.walker.walk(filePath, "open", context.cancellation, { followLast: true });
  const inode = inodeAt(location);
  const storage =
    inode.type === "file"
      ? context.kernel.storageOfFile(inode)
      : inode.type === "blockDevice"
        ? context.state.devices.byDeviceNumber(inode.rdev)?.storage
        : undefined;
  if (storage === undefined) throw new HostError(inode.type === "blockDevice" ? "ENODEV" : "EINVAL", "ioctl", filePath);
  return context.state.devices.add({
    kind: "loop",
    storage,
    readOnly,
    loopBacking: {
      path: location.path,
      fs: filesystemOf(location),
      ino: location.ino,
      dev: location.mount.superblock.dev,
    },
  });
}
