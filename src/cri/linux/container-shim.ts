/**
 * A container's monitor (containerd's shim, conmon): a small process of its own, started by the
 * runtime for each container, in a session of its own so that it outlives the node agent. It runs
 * the container's setup (container-setup-script.ts), copies the container's stdout and stderr to its
 * log file, and writes what happened to `state.json`: running once the command started, then the
 * exit code once it ended — or StartError (exit code 128, runc's) when the setup failed first.
 *
 * It prints one line on stdout once the container runs or has ended, for the agent that started it;
 * an agent started later reads `state.json` instead. Because the container's output goes to this
 * process and not to the agent, a container keeps writing to its log while the agent is down.
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import type { Readable } from "node:stream";
import type { Clock } from "../../runtime/clock.ts";
import { ContainerLogWriter } from "./container-log-writer.ts";
import { readyLine } from "./container-setup-script.ts";
import { readContainerFile, type ShimState, writeShimState } from "./container-state-files.ts";

/** Exit code of a container whose setup failed before its command ran (runc's). */
const startErrorExitCode = 128;
/** What the monitor reads of the setup's report before giving up on the rest. */
const maxSetupReportChars = 1024 * 1024;
/** The lines the monitor prints for the agent that started it. */
export const shimRunningLine = "running";
export const shimExitedLine = "exited";

export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal === null ? 0 : constants.signals[signal]);
}

function isReady(report: string): boolean {
  return report.split("\n").includes(readyLine);
}

/**
 * The setup's report on fd 3: settles at the "ready" line (unshare, which waits for the container,
 * keeps the pipe open, so its end never comes while the container runs) or when the pipe closes.
 * The pipe stays read to its end: unshare's own stderr is on it.
 */
function readSetupReport(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      if (text.length < maxSetupReportChars) text += chunk.toString("utf8");
      if (isReady(text)) resolve(text);
    });
    stream.on("close", () => resolve(text));
  });
}

function tellAgent(line: string): void {
  // The agent that started this monitor may be gone (killed): nobody reads this any more.
  process.stdout.write(`${line}\n`, () => undefined);
}

/** Runs the container whose files are in `containerDir` until it ends; resolves with its final state. */
export async function runContainerShim(containerDir: string, clock: Clock): Promise<ShimState> {
  process.stdout.on("error", () => undefined);
  const file = await readContainerFile(containerDir);
  if (file === undefined) throw new Error(`no container in ${containerDir}`);
  const child = spawn(file.spawn.command, file.spawn.args, {
    env: file.env,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  const log = new ContainerLogWriter(file.logPath, clock);
  log.attach("stdout", child.stdout as Readable);
  log.attach("stderr", child.stderr as Readable);
  let spawnError = "";
  child.on("error", (error) => {
    spawnError = error.message;
  });
  const closed = new Promise<number>((resolve) =>
    child.on("close", (code, signal) => resolve(exitCodeOf(code, signal))),
  );
  const setupReport = readSetupReport(child.stdio[3] as Readable);
  const report = await Promise.race([setupReport, closed.then(() => setupReport)]);
  const startedAtMs = isReady(report) ? clock.now() : 0;
  if (startedAtMs > 0) {
    await writeShimState(containerDir, { phase: "running", shimPid: process.pid, startedAtMs });
    tellAgent(shimRunningLine);
  }
  const exitCode = await closed;
  await Promise.all([log.closed, setupReport]);
  const final: ShimState =
    startedAtMs > 0
      ? {
          phase: "exited",
          shimPid: process.pid,
          startedAtMs,
          finishedAtMs: clock.now(),
          exitCode,
          reason: exitCode === 0 ? "Completed" : "Error",
          message: "",
        }
      : {
          phase: "exited",
          shimPid: process.pid,
          startedAtMs: 0,
          finishedAtMs: clock.now(),
          exitCode: startErrorExitCode,
          reason: "StartError",
          message: (await setupReport).trim() || spawnError || "container setup exited before the command started",
        };
  await writeShimState(containerDir, final);
  tellAgent(shimExitedLine);
  return final;
}
