/**
 * Growing a filesystem to the size of its device, as mount-utils' ResizeFs runs it: `resize2fs
 * <device>` for ext2/3/4 (online when mounted), `xfs_growfs -d <mount point>` for xfs (which must be
 * mounted). The device must have grown first (a cloud disk resized, a loop device re-read with
 * `losetup -c`); growing to the size it already has is a no-op that succeeds, as the real tools do.
 */
import { genericFailureExitStatus } from "../sim-constants.ts";
import { openBlockTarget } from "./block-target.ts";
import { type CommandHandler, failed, succeeded } from "./command-context.ts";
import { strerror } from "./errno-text.ts";

const e2fsprogsBanner = "resize2fs 1.46.5 (30-Dec-2021)\n";
const bytesPerExtBlock = 4096;
const xfsBytesPerBlock = 4096;
const extTypes = new Set(["ext2", "ext3", "ext4"]);

export const resize2fsCommand: CommandHandler = async (context, args) => {
  const device = args.filter((arg) => !arg.startsWith("-")).at(0);
  if (device === undefined) return failed(genericFailureExitStatus, `${e2fsprogsBanner}Usage: resize2fs device\n`);
  const target = await openBlockTarget(context, device);
  if (target.kind === "failed") {
    return failed(
      genericFailureExitStatus,
      `${e2fsprogsBanner}open: ${strerror(target.errno)} while opening ${device}\n`,
    );
  }
  const { storage } = target;
  if (storage.content.kind !== "filesystem" || !extTypes.has(storage.content.fsType)) {
    return failed(
      genericFailureExitStatus,
      `${e2fsprogsBanner}resize2fs: Bad magic number in super-block while trying to open ${device}\n`,
    );
  }
  const fs = storage.content.fs;
  const blocks = Math.floor(storage.sizeBytes / bytesPerExtBlock);
  if (fs.sizeLimitBytes >= storage.sizeBytes) {
    return succeeded(`${e2fsprogsBanner}The filesystem is already ${blocks} (4k) blocks long.  Nothing to do!\n\n`);
  }
  const online = target.mounted ? `Filesystem at ${device} is mounted; on-line resizing required\n` : "";
  if (target.mounted && context.kernel.onlineResizeDenied) {
    // The kernel refuses EXT4_IOC_RESIZE_FS without CAP_SYS_RESOURCE.
    return failed(
      genericFailureExitStatus,
      `${e2fsprogsBanner}${online}old_desc_blocks = 1, new_desc_blocks = 1\nresize2fs: Permission denied to resize filesystem\n`,
    );
  }
  fs.growTo(storage.sizeBytes);
  return succeeded(`${e2fsprogsBanner}${online}The filesystem on ${device} is now ${blocks} (4k) blocks long.\n\n`);
};

export const xfsGrowfsCommand: CommandHandler = async (context, args) => {
  const mountPoint = args.filter((arg) => !arg.startsWith("-")).at(-1);
  if (mountPoint === undefined) return failed(genericFailureExitStatus, "Usage: xfs_growfs [options] mountpoint\n");
  const notXfs = failed(genericFailureExitStatus, `xfs_growfs: ${mountPoint} is not a mounted XFS filesystem\n`);
  let mount: Awaited<ReturnType<typeof context.kernel.mountAt>>;
  try {
    mount = await context.kernel.mountAt(mountPoint, context.cancellation);
  } catch (error) {
    if (context.cancellation.cancelled) throw error;
    return notXfs;
  }
  const device = mount?.superblock.device;
  if (mount === undefined || mount.superblock.fsType !== "xfs" || device === undefined) return notXfs;
  const fs = mount.superblock.fs;
  const before = Math.floor(fs.sizeLimitBytes / xfsBytesPerBlock);
  const after = Math.floor(device.storage.sizeBytes / xfsBytesPerBlock);
  if (after > before) fs.growTo(device.storage.sizeBytes);
  const report = after > before ? `data blocks changed from ${before} to ${after}\n` : "";
  return succeeded(`meta-data=${device.path} isize=512 agcount=4, agsize=${Math.ceil(before / 4)} blks\n${report}`);
};
