/**
 * mount-utils' ResizeFs: grows the filesystem on a device to the device's size, online — `resize2fs
 * <device>` for ext3/ext4, `xfs_growfs -d <mount point>` for xfs. A device without a filesystem
 * needs nothing (mkfs will use the whole device). Errors carry mount-utils' words, which kubelet
 * and CSI node plugins pass on to the user.
 */

import { errorMessage } from "../../runtime/error-message.ts";
import type { Host } from "../host.ts";
import { failureText, outputOf, runCommand } from "./command-outcome.ts";
import { getDiskFormat } from "./safe-format-and-mount.ts";

/** True when a resize was done, false when there was nothing to resize; throws when it failed. */
export async function resizeFs(host: Host, devicePath: string, deviceMountPath: string): Promise<boolean> {
  let format: string;
  try {
    format = await getDiskFormat(host, devicePath);
  } catch (error) {
    throw new Error(`ResizeFS.Resize - error checking format for device ${devicePath}: ${errorMessage(error)}`);
  }
  if (format === "") return false;
  if (format === "ext3" || format === "ext4") return grow(host, "resize2fs", [devicePath], devicePath);
  if (format === "xfs") return grow(host, "xfs_growfs", ["-d", deviceMountPath], deviceMountPath);
  throw new Error(
    `ResizeFS.Resize - resize of format ${format} is not supported for device ${devicePath} mounted at ${deviceMountPath}`,
  );
}

/**
 * Grows an unmounted ext filesystem to its device's size (resize2fs on the device, which needs no
 * privilege beyond writing the device, unlike an online resize). Returns false when the device
 * holds no ext filesystem (xfs only grows mounted); throws resize2fs's words when it fails.
 */
export async function resizeUnmountedExtFs(host: Host, devicePath: string): Promise<boolean> {
  const format = await getDiskFormat(host, devicePath);
  if (format !== "ext2" && format !== "ext3" && format !== "ext4") return false;
  return grow(host, "resize2fs", [devicePath], devicePath);
}

/** resize2fs's words when the kernel refuses an online resize (EPERM without CAP_SYS_RESOURCE). */
export const onlineResizeDeniedText = "Permission denied to resize filesystem";

async function grow(host: Host, command: string, args: string[], subject: string): Promise<boolean> {
  const outcome = await runCommand(host, command, args);
  const failure = failureText(outcome);
  if (failure === undefined) return true;
  throw new Error(`resize of device ${subject} failed: ${failure}. ${command} output: ${outputOf(outcome)}`);
}
