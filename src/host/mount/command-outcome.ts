/**
 * Running a command through the Host and describing a failure as Go's os/exec prints it, because
 * mount-utils embeds that text in its messages (`mount failed: exit status 32`,
 * `exec: "mount": executable file not found in $PATH`).
 */
import { type CommandResult, type Host, HostError, isHostError } from "../host.ts";
import { commandNotFoundExitStatus } from "./constants.ts";

/** The outcome of running a command: it ran to an exit status, or could not run or finish. */
export type CommandOutcome =
  | { kind: "exited"; result: CommandResult }
  | { kind: "failedToRun"; error: Error; errorText: string };

/** Runs a command and never throws for a failure to start or a deadline; both become an outcome. */
export async function runCommand(
  host: Host,
  command: string,
  args: readonly string[],
  timeoutMs?: number,
): Promise<CommandOutcome> {
  let result: CommandResult;
  try {
    result = await host.run(command, args, timeoutMs === undefined ? {} : { timeoutMs });
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return { kind: "failedToRun", error, errorText: runFailureText(command, error) };
  }
  // 127 also comes from a binary that exists but could not find one of its own helpers; only a
  // binary missing from PATH is Go's "executable file not found".
  if (result.exitCode === commandNotFoundExitStatus && !(await host.hasCommand(command))) {
    const error = new HostError("ENOENT", "exec", command);
    return { kind: "failedToRun", error, errorText: runFailureText(command, error) };
  }
  return { kind: "exited", result };
}

/** `exit status 32`, as Go's exec.ExitError prints a non-zero exit. */
export function exitStatusText(exitCode: number): string {
  return `exit status ${exitCode}`;
}

/** Go's wording for a command that could not be started or did not finish in time. */
function runFailureText(command: string, error: Error): string {
  if (isHostError(error, "ENOENT")) return `exec: "${command}": executable file not found in $PATH`;
  if (isHostError(error, "ETIMEDOUT")) return "context deadline exceeded";
  return error.message;
}

/** The error text of an outcome that is a failure, or undefined when the command exited 0. */
export function failureText(outcome: CommandOutcome): string | undefined {
  if (outcome.kind === "failedToRun") return outcome.errorText;
  return outcome.result.exitCode === 0 ? undefined : exitStatusText(outcome.result.exitCode);
}

/** The combined output of an outcome (empty when the command never ran). */
export function outputOf(outcome: CommandOutcome): string {
  return outcome.kind === "exited" ? outcome.result.output : "";
}
