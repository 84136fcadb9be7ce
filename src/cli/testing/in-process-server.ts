/**
 * `kvol server` run inside the test's own process (runServerCommand with a CommandIo that keeps
 * its output): wait until it serves, read its address and kubeconfig, stop it as SIGTERM would.
 */
import { readFileSync } from "node:fs";
import { fetchTrusting } from "../../testing/fetch-trusting.ts";
import type { CommandIo } from "../command-io.ts";
import { DataDir } from "../embedded/data-dir.ts";
import { runServerCommand } from "../server-command.ts";
import { waitFor } from "./wait-for.ts";

export interface InProcessServer {
  stdout(): string;
  stderr(): string;
  /** The command's exit status, once it ends. */
  running: Promise<number>;
  /** Resolves once the server printed that it is ready. */
  ready(timeoutMs: number): Promise<void>;
  /** The printed `https://` address. */
  url(): string;
  /** `fetch` trusting the data directory's CA (`ca.crt`), for requests to url(). */
  fetch(input: string | URL, init?: RequestInit): Promise<Response>;
  kubeconfigPath(): string;
  /** Asks it to stop (SIGTERM) and resolves with its exit status. */
  stop(): Promise<number>;
}

function dataDirOf(args: readonly string[]): string {
  const dir = args[args.indexOf("--data-dir") + 1];
  if (!args.includes("--data-dir") || dir === undefined) throw new Error("runServerInProcess needs --data-dir");
  return dir;
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
    url: () => /^API server: (\S+)$/m.exec(stdout)?.[1] ?? "",
    fetch: (input, init) => fetchTrusting(readFileSync(new DataDir(dataDirOf(args)).caFile, "utf8"))(input, init),
    kubeconfigPath: () => /^kubeconfig: (\S+)$/m.exec(stdout)?.[1] ?? "",
    stop: async () => {
      stop("SIGTERM");
      return running;
    },
  };
}
