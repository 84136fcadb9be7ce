/**
 * Running a binary to completion, as Go's exec.Cmd.CombinedOutput: stdout and stderr through one
 * pipe, so the text keeps the order in which the command wrote it (a shell joins stderr to stdout
 * and then execs the command, so the pid and a deadline's SIGKILL are the command's own). A
 * deadline fails with ETIMEDOUT; the caller reports a binary missing from PATH as exit status 127,
 * as a shell and the simulated node do.
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { type CommandResult, HostError, type RunOptions } from "../host.ts";
import { posixShellPath, signalExitStatusBase } from "./constants.ts";
import { hostErrnoOf } from "./errno.ts";

/** `$1...` is the command line; stderr joins stdout before the shell becomes the command. */
const joinStderrThenExecScript = 'exec "$@" 2>&1';

/** Runs a command found on PATH (the caller checks that first) and collects its combined output. */
export function runToCompletion(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  options: RunOptions = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(posixShellPath, ["-c", joinStderrThenExecScript, "sh", command, ...args], {
      env,
      stdio: ["pipe", "pipe", "pipe"],
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs, killSignal: "SIGKILL" as const }),
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    // Only the shell itself writes here, before the exec (a command it could not start).
    child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk));
    const output = () => Buffer.concat(chunks).toString("utf8");

    child.on("error", (error: NodeJS.ErrnoException) => {
      reject(new HostError(hostErrnoOf(error.code) ?? "EINVAL", "exec", posixShellPath, error.message));
    });
    // A deadline must not wait for the pipes: a helper the command forked may hold them open.
    child.on("exit", (_code, signal) => {
      if (signal !== null && child.killed && options.timeoutMs !== undefined) {
        child.stdout.destroy();
        child.stderr.destroy();
        reject(new HostError("ETIMEDOUT", "exec", command, `killed after ${options.timeoutMs} ms: ${output()}`));
      }
    });
    child.on("close", (code, signal) => {
      if (signal !== null && child.killed && options.timeoutMs !== undefined) return;
      const exitCode = code ?? signalExitStatusBase + (signal === null ? 0 : constants.signals[signal]);
      resolve({ exitCode, output: output() });
    });
    child.stdin.on("error", (error: NodeJS.ErrnoException) => {
      // The command may exit without reading its input (EPIPE); its exit status tells what happened.
      if (error.code !== "EPIPE") reject(new HostError("EIO", "write", `${command} stdin`, error.message));
    });
    child.stdin.end(options.input ?? "");
  });
}
