/**
 * fsck(8) as mount-utils runs it before a read-write mount: `fsck -a <device>`. Exit 0 clean,
 * 1 errors corrected (the next run is clean), 4 errors left uncorrected (mount-utils then refuses to
 * mount), 8 operational error (no filesystem, device mounted).
 */
import { fsckErrorsCorrectedExitStatus } from "../../mount/constants.ts";
import { fsckCleanExitStatus } from "../sim-constants.ts";
import { openBlockTarget } from "./block-target.ts";
import { type CommandHandler, failed } from "./command-context.ts";
import { strerror } from "./errno-text.ts";

const fsckOperationalErrorExitStatus = 8;

export const fsckCommand: CommandHandler = async (context, args) => {
  const banner = `fsck from util-linux ${context.kernel.options.utilLinux}\n`;
  const device = args.filter((arg) => !arg.startsWith("-")).at(-1);
  if (device === undefined) return failed(fsckOperationalErrorExitStatus, `${banner}fsck: no device specified\n`);
  const target = await openBlockTarget(context, device);
  if (target.kind === "failed") {
    return failed(
      fsckOperationalErrorExitStatus,
      `${banner}fsck.ext4: ${strerror(target.errno)} while trying to open ${device}\n`,
    );
  }
  const { storage } = target;
  const fsType = storage.fsType;
  if (fsType === undefined) {
    return failed(
      fsckOperationalErrorExitStatus,
      `${banner}fsck.ext2: Bad magic number in super-block while trying to open ${device}\n`,
    );
  }
  if (target.mounted) {
    return failed(
      fsckOperationalErrorExitStatus,
      `${banner}fsck.${fsType}: ${device} is mounted.\ne2fsck: Cannot continue, aborting.\n\n`,
    );
  }
  const exitCode = storage.faults.fsckExitStatus;
  const report = exitCode === fsckCleanExitStatus ? `${device}: clean\n` : storage.faults.fsckOutput;
  // Corrected errors are gone after this run; uncorrected ones stay until someone repairs the disk.
  if (exitCode === fsckErrorsCorrectedExitStatus) {
    storage.faults.fsckExitStatus = fsckCleanExitStatus;
    storage.faults.fsckOutput = "";
  }
  return { exitCode, output: `${banner}${report}` };
};
