/**
 * What a simulated userland command gets to work with: the node's kernel, the scope a daemon it
 * forks would join, a cancellation (its deadline, or the node going down) and a way to run other
 * commands (a helper, systemd-run's payload). Commands return what the real binary prints and its
 * exit status; they never throw for a failure the real binary would report.
 */
import type { CommandResult, DaemonScope } from "../../host.ts";
import type { BootState, SimKernel } from "../sim-kernel.ts";
import type { Cancellation } from "../sim-wait.ts";

export interface CommandContext {
  readonly kernel: SimKernel;
  readonly state: BootState;
  /** The scope a daemon forked by this command joins: the caller's ("agent"), or "own" inside systemd-run --scope. */
  readonly scope: DaemonScope;
  /** The agent whose scope an "agent"-scope daemon joins (RunOptions.agent), if the caller named one. */
  readonly agent: string | undefined;
  readonly cancellation: Cancellation;
  isInstalled(command: string): boolean;
  /** Runs another command as a child in `scope`; an uninstalled one exits 127. */
  run(command: string, args: readonly string[], scope: DaemonScope): Promise<CommandResult>;
  /** Waits on the node's clock; ends early (throwing) when the command is cancelled. */
  sleep(delayMs: number): Promise<void>;
}

export type CommandHandler = (context: CommandContext, args: readonly string[]) => Promise<CommandResult>;

export function succeeded(output = ""): CommandResult {
  return { exitCode: 0, output };
}

export function failed(exitCode: number, output: string): CommandResult {
  return { exitCode, output };
}
