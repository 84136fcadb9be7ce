/**
 * `systemd-run --description=… --scope -- <command…>`: runs the command in a new transient scope
 * (its own cgroup), so a daemon it forks — a FUSE daemon started by mount — survives a restart of
 * the agent that ran it. Prints `Running scope as unit run-<n>.scope.` before the command's output
 * and exits with the command's status. On a node where systemd is installed but is not PID 1 (a
 * kubelet in a container) it fails to reach the bus, which is why mount-utils' probe then disables
 * the scope.
 */
import { genericFailureExitStatus } from "../sim-constants.ts";
import { type CommandHandler, failed } from "./command-context.ts";

/** systemd-run options that take the next argument as their value. */
const optionsWithValue = new Set(["--description", "--unit", "-u", "--property", "-p", "--slice", "--uid", "--gid"]);

export const systemdRunCommand: CommandHandler = async (context, args) => {
  if (context.kernel.options.systemd !== "pid1") {
    return failed(
      genericFailureExitStatus,
      "System has not been booted with systemd as init system (PID 1). Can't operate.\n" +
        "Failed to create bus connection: Host is down\n",
    );
  }
  const parsed = parseSystemdRunArgs(args);
  if (parsed === undefined) return failed(genericFailureExitStatus, "systemd-run: command line not understood\n");
  if (!parsed.scope) {
    return failed(genericFailureExitStatus, "systemd-run: only --scope units are supported on this node model\n");
  }
  const [command, ...commandArgs] = parsed.command;
  if (command === undefined) return failed(genericFailureExitStatus, "Command line to execute required.\n");
  if (!context.isInstalled(command)) {
    return failed(genericFailureExitStatus, `Failed to find executable ${command}: No such file or directory\n`);
  }
  const scopeLine = `Running scope as unit run-${context.kernel.allocateScopeUnit()}.scope.\n`;
  const result = await context.run(command, commandArgs, "own");
  return { exitCode: result.exitCode, output: `${scopeLine}${result.output}` };
};

function parseSystemdRunArgs(args: readonly string[]): { scope: boolean; command: string[] } | undefined {
  let scope = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? "";
    if (arg === "--") return { scope, command: args.slice(index + 1) };
    if (arg === "--scope") scope = true;
    else if (optionsWithValue.has(arg)) index++;
    else if (arg.startsWith("-")) continue;
    else return { scope, command: args.slice(index) };
  }
  return undefined;
}
