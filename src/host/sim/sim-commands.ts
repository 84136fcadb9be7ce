/**
 * The userland of a simulated node: every binary the model knows, by name. Which of them a given
 * node has installed is the node's business (SimHost.installCommand / removeCommand); a missing one
 * exits 127, like a shell, and Host callers word it as Go's exec does.
 */
import { blkidCommand } from "./commands/blkid.ts";
import { type CommandHandler, succeeded } from "./commands/command-context.ts";
import { cpCommand, truncateCommand } from "./commands/cp.ts";
import { fsckCommand } from "./commands/fsck.ts";
import { fuseProgramCommand, fuseProgramNames } from "./commands/fuse.ts";
import { losetupCommand } from "./commands/losetup.ts";
import { mkfsCommand, mkfsTypeCommand } from "./commands/mkfs.ts";
import { mountCommand } from "./commands/mount.ts";
import { mountNfsHelperCommand } from "./commands/mount-nfs.ts";
import { rbdCommand } from "./commands/rbd.ts";
import { resize2fsCommand, xfsGrowfsCommand } from "./commands/resize-fs.ts";
import { systemdRunCommand } from "./commands/systemd-run.ts";
import { umountCommand } from "./commands/umount.ts";

/** mount.fuse only dispatches to the FUSE program; mount(8) checks for it, nobody runs it directly. */
const mountFuseHelper: CommandHandler = async () => succeeded();

export const simCommands: ReadonlyMap<string, CommandHandler> = new Map<string, CommandHandler>([
  ["mount", mountCommand],
  ["umount", umountCommand],
  ["systemd-run", systemdRunCommand],
  ["true", async () => succeeded()],
  ["cp", cpCommand],
  ["truncate", truncateCommand],
  ["losetup", losetupCommand],
  ["blkid", blkidCommand],
  ["mkfs", mkfsCommand],
  ["mkfs.ext2", mkfsTypeCommand("ext2")],
  ["mkfs.ext3", mkfsTypeCommand("ext3")],
  ["mkfs.ext4", mkfsTypeCommand("ext4")],
  ["mkfs.xfs", mkfsTypeCommand("xfs")],
  ["fsck", fsckCommand],
  ["resize2fs", resize2fsCommand],
  ["xfs_growfs", xfsGrowfsCommand],
  ["rbd", rbdCommand],
  ["mount.nfs", mountNfsHelperCommand],
  ["mount.nfs4", mountNfsHelperCommand],
  ["mount.fuse", mountFuseHelper],
  ...fuseProgramNames.map((program): [string, CommandHandler] => [program, fuseProgramCommand(program)]),
]);

/** What a node has unless told otherwise: the whole model (systemd-run only where systemd is installed). */
export function defaultInstalledCommands(systemdInstalled: boolean): string[] {
  return [...simCommands.keys()].filter((name) => systemdInstalled || name !== "systemd-run");
}
