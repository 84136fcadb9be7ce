/** mount(8)'s check of the mount point, shared by every filesystem type. */
import type { CommandResult } from "../../host.ts";
import { mountFailureExitStatus } from "../sim-constants.ts";
import { type CommandContext, failed } from "./command-context.ts";
import { errnoOf, strerror } from "./errno-text.ts";
import { mountPointMissingText, mountTargetErrorText } from "./util-linux-messages.ts";

/** A failure result when the mount point cannot be used, undefined when it can. */
export async function checkTarget(context: CommandContext, target: string): Promise<CommandResult | undefined> {
  try {
    await context.state.walker.walk(target, "mount", context.cancellation, { followLast: true });
    return undefined;
  } catch (error) {
    if (context.cancellation.cancelled) throw error;
    const version = context.kernel.options.utilLinux;
    const code = errnoOf(error);
    if (code === "ENOENT") return failed(mountFailureExitStatus, mountPointMissingText(version, target));
    return failed(mountFailureExitStatus, mountTargetErrorText(version, target, strerror(code)));
  }
}
