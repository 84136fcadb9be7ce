/**
 * mkfs: `mkfs.ext4 -F -m0 <dev>`, `mkfs.xfs -f <dev>`, `mkfs -t <type> …`. Puts a new, empty
 * filesystem on the device (whatever was there is gone — the reason mount-utils formats only what
 * blkid calls empty). Refuses a mounted device, and an existing filesystem without the force flag;
 * an injected storage fault makes it exit 1 with the fault's text.
 */
import type { CommandResult } from "../../host.ts";
import { genericFailureExitStatus } from "../sim-constants.ts";
import { openBlockTarget } from "./block-target.ts";
import { type CommandContext, type CommandHandler, failed, succeeded } from "./command-context.ts";
import { strerror } from "./errno-text.ts";

const supportedTypes = new Set(["ext2", "ext3", "ext4", "xfs"]);
const e2fsprogsBanner = "mke2fs 1.46.5 (30-Dec-2021)\n";
const bytesPerExtBlock = 4096;
const bytesPerExtInode = 16384;

export function mkfsTypeCommand(fsType: string): CommandHandler {
  return (context, args) => makeFilesystem(context, fsType, args);
}

/** `mkfs -t <type> [options] <device>` hands over to mkfs.<type>. */
export const mkfsCommand: CommandHandler = async (context, args) => {
  const typeIndex = args.indexOf("-t");
  const fsType = typeIndex >= 0 ? args[typeIndex + 1] : "ext2";
  if (fsType === undefined || !supportedTypes.has(fsType)) {
    return failed(
      genericFailureExitStatus,
      `mkfs: failed to execute mkfs.${fsType ?? ""}: No such file or directory\n`,
    );
  }
  const rest = args.filter((_arg, index) => index !== typeIndex && index !== typeIndex + 1);
  return makeFilesystem(context, fsType, rest);
};

async function makeFilesystem(
  context: CommandContext,
  fsType: string,
  args: readonly string[],
): Promise<CommandResult> {
  const isXfs = fsType === "xfs";
  const program = `mkfs.${fsType}`;
  const device = args.filter((arg) => !arg.startsWith("-")).at(-1);
  const force = args.includes(isXfs ? "-f" : "-F");
  if (device === undefined) return failed(genericFailureExitStatus, `${program}: no device specified\n`);
  const target = await openBlockTarget(context, device);
  if (target.kind === "failed") {
    return failed(
      genericFailureExitStatus,
      `${isXfs ? "" : e2fsprogsBanner}${program}: ${strerror(target.errno)} while trying to open ${device}\n`,
    );
  }
  const { storage } = target;
  const existing = storage.fsType;
  if (target.mounted) {
    return failed(
      genericFailureExitStatus,
      isXfs
        ? `mkfs.xfs: ${device} contains a mounted filesystem\n`
        : `${e2fsprogsBanner}${device} contains a ${existing ?? "unknown"} file system\n${device} is mounted; will not make a filesystem here!\n`,
    );
  }
  if (existing !== undefined && !force) {
    return failed(
      genericFailureExitStatus,
      isXfs
        ? `mkfs.xfs: ${device} appears to contain an existing filesystem (${existing}).\nmkfs.xfs: Use the -f option to force overwrite.\n`
        : `${e2fsprogsBanner}${device} contains a ${existing} file system\nProceed anyway? (y,N) `,
    );
  }
  if (target.readOnly)
    return failed(genericFailureExitStatus, `${program}: Read-only file system while setting up superblock\n`);
  if (storage.faults.mkfsFailureOutput !== undefined)
    return failed(genericFailureExitStatus, storage.faults.mkfsFailureOutput);
  const uuid = context.kernel.env.rng.uuid();
  storage.format(fsType, uuid);
  return succeeded(isXfs ? xfsReport(device, storage.sizeBytes) : extReport(storage.sizeBytes, uuid));
}

function extReport(sizeBytes: number, uuid: string): string {
  const blocks = Math.floor(sizeBytes / bytesPerExtBlock);
  const inodes = Math.floor(sizeBytes / bytesPerExtInode);
  return (
    `${e2fsprogsBanner}Creating filesystem with ${blocks} 4k blocks and ${inodes} inodes\n` +
    `Filesystem UUID: ${uuid}\n\nAllocating group tables: done\nWriting inode tables: done\n` +
    "Creating journal: done\nWriting superblocks and filesystem accounting information: done\n\n"
  );
}

function xfsReport(device: string, sizeBytes: number): string {
  const blocks = Math.floor(sizeBytes / bytesPerExtBlock);
  return `meta-data=${device} isize=512 agcount=4, agsize=${Math.ceil(blocks / 4)} blks\ndata=bsize=4096 blocks=${blocks}\n`;
}
