/**
 * `kvol server` run inside the test's own process (runServerCommand with a CommandIo that keeps
 * its output): wait until it serves, read its address and kubeconfig, stop it as SIGTERM would.
 */
import type { CommandIo } from "../command-io.ts";
import { plainHttpUrl } from "../embedded/data-dir.ts";
import { runServerCommand } from "../server-command.ts";
import { waitFor } from "./wait-for.ts";

export interface InProcessServer {
  stdout(): string;
  stderr(): string;
  /** The command's exit status, once it ends. */
  running: Promise<number>;
  /** Resolves once the server printed that it is ready. */
  ready(timeoutMs: number): Promise<void>;
  /** The plain-HTTP address of the printed (HTTPS) one, for tests without its certificate authority. */
  url(): string;
  kubeconfigPath(): string;
  /** Asks it to stop (SIGTERM) and resolves with its exit status. */
  stop(): Promise<number>;
}

export function runServerInProcess(args: readonly string[]): InProcessServer {
  let stop: (signal: string) => void = () => undefined;
  let stdout = "";
  let stderr = "";
  const io: CommandIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stopRequested: () => new Promise<string>((resolve) => (stop = resolve)),
  };
  const running = runServerCommand(args, io);
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    running,
    ready: async (timeoutMs) => {
      await waitFor("kvol server ready", () => /Ready: 0 node/.test(stdout) || undefined, timeoutMs);
    },
    url: () => plainHttpUrl(/^API server: (\S+)$/m.exec(stdout)?.[1] ?? ""),
    kubeconfigPath: () => /^kubeconfig: (\S+)$/m.exec(stdout)?.[1] ?? "",
    stop: async () => {
      stop("SIGTERM");
      return running;
    },
  };
}
