/**
 * A `kvol` command run as its own process for end-to-end tests (`node bin/kvol.js …`), with its
 * output collected, a way to wait for a line, and a clean or brutal end.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fetchTrusting } from "../../testing/fetch-trusting.ts";
import { caFileName } from "../embedded/constants.ts";
import { waitFor } from "./wait-for.ts";

const kvolBin = fileURLToPath(new URL("../../../bin/kvol.js", import.meta.url));

export class KvolProcess {
  private readonly child: ChildProcess;
  private stdoutText = "";
  private stderrText = "";
  private readonly exited: Promise<number | null>;

  /** `wrapper` runs kvol through another command, e.g. `["nsenter", "-t", PID, "-m", "--"]`. */
  constructor(args: readonly string[], wrapper: readonly string[] = []) {
    const [command, ...commandArgs] = [...wrapper, process.execPath, kvolBin, ...args];
    this.child = spawn(command ?? process.execPath, commandArgs, { stdio: ["ignore", "pipe", "pipe"] });
    this.child.stdout?.on("data", (chunk: Buffer) => {
      this.stdoutText += chunk.toString();
    });
    this.child.stderr?.on("data", (chunk: Buffer) => {
      this.stderrText += chunk.toString();
    });
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
  }

  get stdout(): string {
    return this.stdoutText;
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** The process id of the `kvol` process. */
  get pid(): number {
    return this.child.pid ?? 0;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The first match of `pattern` in stdout, once it appears. */
  async waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    const found = await waitFor(
      `output matching ${pattern} from kvol (stderr so far: ${this.stderrText.slice(-500)})`,
      () => {
        const match = pattern.exec(this.stdoutText);
        // An exited process will print nothing more: fail now rather than at the timeout.
        if (match === null && !this.running) return new Error(`kvol exited: ${this.stderrText.slice(-2000)}`);
        return match ?? undefined;
      },
      timeoutMs,
    );
    if (found instanceof Error) throw found;
    return found;
  }

  /** Resolves with the exit status once the process ends by itself (null when killed by a signal). */
  exitStatus(): Promise<number | null> {
    return this.exited;
  }

  /** Sends `signal` and resolves with the exit status (null when killed by the signal). */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
    if (this.running) this.child.kill(signal);
    return this.exited;
  }
}

export interface StartedCluster {
  /** The API server's `https://` address (the kubeconfig's). */
  url: string;
  kubeconfigUrl: string;
  kubeconfigPath: string;
  /** The certificate authority the server's certificate chains to, and its file (DATA/ca.crt). */
  caPem: string;
  caFile: string;
  /** `fetch` trusting that CA: bearer tokens go over TLS only. */
  fetch: (input: string | URL, init?: RequestInit) => Promise<Response>;
}

/** The address and kubeconfig path `kvol up` and `kvol server` print first, and their CA. */
export async function startedCluster(kvol: KvolProcess, timeoutMs: number): Promise<StartedCluster> {
  const match = await kvol.waitForOutput(/API server: (\S+)\nkubeconfig: (\S+)\n/, timeoutMs);
  const kubeconfigUrl = match[1] ?? "";
  const kubeconfigPath = match[2] ?? "";
  const caFile = join(dirname(kubeconfigPath), caFileName);
  const caPem = readFileSync(caFile, "utf8");
  return { url: kubeconfigUrl, kubeconfigUrl, kubeconfigPath, caPem, caFile, fetch: fetchTrusting(caPem) };
}
