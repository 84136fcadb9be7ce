/**
 * umount(8): `umount [-f] [-l] target`. A busy mount (a holder, or mounts below it) fails with
 * "target is busy" and exit 32 unless -l detaches it lazily; a path that is not a mount point fails
 * with "not mounted". A plain umount of a hard NFS mount whose server is down hangs (the client
 * flushes first); -f and -l do not wait. A dead FUSE mount can be unmounted: the mount point is
 * looked up without asking the dead filesystem.
 */
import { mountFailureExitStatus, mountUsageExitStatus } from "../sim-constants.ts";
import { type CommandHandler, failed, succeeded } from "./command-context.ts";
import { errnoOf, strerror } from "./errno-text.ts";
import {
  umountBusyText,
  umountErrorText,
  umountNoMountPointText,
  umountNotMountedText,
  umountUsageText,
} from "./util-linux-messages.ts";

interface UmountRequest {
  target: string;
  force: boolean;
  lazy: boolean;
}

export const umountCommand: CommandHandler = async (context, args) => {
  const request = parseUmountArgs(args);
  if (request === undefined) return failed(mountUsageExitStatus, umountUsageText());
  const version = context.kernel.options.utilLinux;
  const { target } = request;
  try {
    const mount = await context.kernel.mountAt(target, context.cancellation);
    if (mount === undefined) return failed(mountFailureExitStatus, umountNotMountedText(version, target));
    if (request.force) mount.superblock.abortPendingRequests?.();
    else if (!request.lazy) await mount.superblock.flushBeforeUnmount?.(context.cancellation);
    await context.kernel.unmount(target, { lazy: request.lazy }, context.cancellation);
    return succeeded();
  } catch (error) {
    if (context.cancellation.cancelled) throw error;
    const code = errnoOf(error);
    if (code === "ENOENT") return failed(mountFailureExitStatus, umountNoMountPointText(version, target));
    if (code === "EBUSY") return failed(mountFailureExitStatus, umountBusyText(version, target));
    if (code === "EINVAL") return failed(mountFailureExitStatus, umountNotMountedText(version, target));
    return failed(mountFailureExitStatus, umountErrorText(version, target, strerror(code)));
  }
};

function parseUmountArgs(args: readonly string[]): UmountRequest | undefined {
  let force = false;
  let lazy = false;
  const positionals: string[] = [];
  for (const arg of args) {
    if (arg === "--force") force = true;
    else if (arg === "--lazy") lazy = true;
    else if (/^-[flnvd]+$/.test(arg)) {
      force ||= arg.includes("f");
      lazy ||= arg.includes("l");
    } else if (arg.startsWith("-")) return undefined;
    else positionals.push(arg);
  }
  const [target] = positionals;
  return target === undefined || positionals.length !== 1 ? undefined : { target, force, lazy };
}
