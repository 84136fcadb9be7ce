/**
 * Mounting a block filesystem (ext2/3/4, xfs, btrfs) from a device node, a /dev/disk/by-id link, or
 * a regular file (through a loop device mount sets up itself). An unformatted device, or one holding
 * another filesystem, fails with "wrong fs type, bad option, bad superblock", as on Linux.
 */
import type { CommandResult } from "../../host.ts";
import type { BlockDevice } from "../devices.ts";
import { inodeAt } from "../path-walk.ts";
import { mountFailureExitStatus } from "../sim-constants.ts";
import { type CommandContext, failed, succeeded } from "./command-context.ts";
import { errnoOf, strerror } from "./errno-text.ts";
import { setUpLoopDevice } from "./loop-setup.ts";
import { type MountRequest, mountOptionsFor } from "./mount-args.ts";
import {
  cannotReadSuperblockText,
  mountTargetErrorText,
  notBlockDeviceText,
  specialDeviceMissingText,
  wrongFsTypeText,
} from "./util-linux-messages.ts";

export const blockFilesystemTypes = new Set(["ext2", "ext3", "ext4", "xfs", "btrfs"]);
/** The ext4 driver also mounts ext2 and ext3 filesystems. */
const extFamily = new Set(["ext2", "ext3", "ext4"]);

type DeviceLookup = { kind: "device"; device: BlockDevice } | { kind: "failed"; result: CommandResult };

export async function mountBlockFilesystem(
  context: CommandContext,
  request: MountRequest,
  fsType: string,
): Promise<CommandResult> {
  const version = context.kernel.options.utilLinux;
  const source = request.source ?? "none";
  const lookup = await openSource(context, request, source);
  if (lookup.kind === "failed") return lookup.result;
  const device = lookup.device;
  if (device.gone) return failed(mountFailureExitStatus, cannotReadSuperblockText(version, request.target, source));
  const content = device.storage.content;
  if (content.kind !== "filesystem" || !sameFamily(content.fsType, fsType)) {
    // A loop device mount set up by itself is released with the failed mount.
    if (device.autoclear) context.state.devices.remove(device);
    return failed(mountFailureExitStatus, wrongFsTypeText(version, request.target, device.path, false));
  }
  const forcedReadOnly = device.readOnly && !request.readOnly;
  const superblock = context.kernel.deviceSuperblock(device, content, device.path);
  const options = mountOptionsFor({ ...request, readOnly: request.readOnly || device.readOnly });
  await context.kernel.mount(
    request.target,
    { superblock, rootIno: content.fs.rootIno, rootPath: "/", options },
    context.cancellation,
  );
  return succeeded(forcedReadOnly ? writeProtectedWarning(version, request.target, device.path) : "");
}

/** The fs type blkid would report for a mount without -t, or undefined. */
export async function detectBlockFsType(context: CommandContext, source: string): Promise<string | undefined> {
  try {
    const location = await context.state.walker.walk(source, "open", context.cancellation, { followLast: true });
    const inode = inodeAt(location);
    if (inode.type === "file") return context.kernel.storageOfFile(inode).fsType;
    if (inode.type !== "blockDevice") return undefined;
    return context.state.devices.byDeviceNumber(inode.rdev)?.storage.fsType;
  } catch (error) {
    if (context.cancellation.cancelled) throw error;
    errnoOf(error);
    return undefined;
  }
}

async function openSource(context: CommandContext, request: MountRequest, source: string): Promise<DeviceLookup> {
  const version = context.kernel.options.utilLinux;
  try {
    const location = await context.state.walker.walk(source, "open", context.cancellation, { followLast: true });
    const inode = inodeAt(location);
    if (inode.type === "file") {
      const loop = await setUpLoopDevice(context, source, request.readOnly);
      loop.autoclear = true;
      return { kind: "device", device: loop };
    }
    const device = inode.type === "blockDevice" ? context.state.devices.byDeviceNumber(inode.rdev) : undefined;
    if (device === undefined) {
      return {
        kind: "failed",
        result: failed(mountFailureExitStatus, notBlockDeviceText(version, request.target, source)),
      };
    }
    return { kind: "device", device };
  } catch (error) {
    if (context.cancellation.cancelled) throw error;
    const code = errnoOf(error);
    const text =
      code === "ENOENT"
        ? specialDeviceMissingText(version, request.target, source)
        : mountTargetErrorText(version, request.target, strerror(code));
    return { kind: "failed", result: failed(mountFailureExitStatus, text) };
  }
}

function sameFamily(actual: string, requested: string): boolean {
  return actual === requested || (extFamily.has(actual) && extFamily.has(requested));
}

function writeProtectedWarning(version: string, target: string, devicePath: string): string {
  return version === "2.23"
    ? `mount: ${devicePath} is write-protected, mounting read-only\n`
    : `mount: ${target}: WARNING: source write-protected, mounted read-only.\n`;
}
