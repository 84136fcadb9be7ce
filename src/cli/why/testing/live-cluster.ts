/**
 * A live `kvol up` for the end-to-end tests of `kvol why`: started in a fresh data directory on a
 * free port, and the CLI run against it as a user runs it — `node bin/kvol.js …` as its own
 * process, with nothing but PATH, HOME (the data directory) and the KUBECONFIG `kvol up` wrote.
 * The tests run with KVOL_E2E=1 or under CI=true.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { KvolProcess, startedCluster } from "../../testing/kvol-process.ts";
import { type CommandRun, runCommand } from "../../testing/run-command.ts";
import { waitFor } from "../../testing/wait-for.ts";

const kvolBin = fileURLToPath(new URL("../../../../bin/kvol.js", import.meta.url));
/** Patience only: a loaded machine starts `kvol up` and each CLI process slowly. */
const startTimeoutMs = 60_000;
const commandTimeoutMs = 60_000;
/** How long a chain may take to show: patience for a loaded machine, not a claim about kvol. */
export const liveWaitMs = 90_000;

/** Why the live tests do not run here, if they do not. */
export function liveClusterSkipReason(): string | undefined {
  if (process.env.CI !== "true" && process.env.KVOL_E2E !== "1") return "starts kvol up; set KVOL_E2E=1 to run it";
  return undefined;
}

export class LiveCluster {
  private constructor(
    readonly dir: string,
    readonly kvol: KvolProcess,
    readonly env: NodeJS.ProcessEnv,
    /** The API server's `https://` address (the kubeconfig's). */
    readonly url: string,
  ) {}

  /** `kvol up --port 0 --data-dir <fresh dir> …upArgs`, once it serves. */
  static async start(name: string, upArgs: readonly string[]): Promise<LiveCluster> {
    const dir = mkdtempSync(join(tmpdir(), `kvol-${name}-`));
    const kvol = new KvolProcess(["up", "--port", "0", "--data-dir", join(dir, "data"), ...upArgs]);
    try {
      const { kubeconfigPath, url } = await startedCluster(kvol, startTimeoutMs);
      await kvol.waitForOutput(/^Ready: \d+ node\(s\)/m, startTimeoutMs);
      return new LiveCluster(dir, kvol, { PATH: process.env.PATH ?? "", HOME: dir, KUBECONFIG: kubeconfigPath }, url);
    } catch (error) {
      await kvol.stop("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.kvol.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** `kvol ARGS…` as its own process, `input` on its stdin. */
  cli(args: readonly string[], input?: string): Promise<CommandRun> {
    return runCommand(process.execPath, [kvolBin, ...args], this.env, commandTimeoutMs, input);
  }

  /** `kvol apply -f -` of `manifests`, which must succeed. */
  async apply(manifests: string): Promise<void> {
    const applied = await this.cli(["apply", "-f", "-"], manifests);
    assert.equal(applied.status, 0, applied.stderr);
  }

  /** `kvol fault ARGS…`, which must succeed. */
  async fault(...args: string[]): Promise<void> {
    const injected = await this.cli(["fault", ...args]);
    assert.equal(injected.status, 0, injected.stderr);
  }

  /** `kvol why OBJECT` (with `args`), polled until its output holds `text`; that output. */
  async whyUntil(object: string, text: string, args: readonly string[] = []): Promise<string> {
    return waitFor(
      `kvol why ${object} to say ${JSON.stringify(text)}`,
      async () => {
        const why = await this.cli(["why", object, ...args]);
        assert.equal(why.status, 0, why.stderr);
        return why.stdout.includes(text) ? why.stdout : undefined;
      },
      liveWaitMs,
    );
  }
}

/** Each expected line is in `text` (a string literally, a RegExp as a match). */
export function assertLines(text: string, expected: readonly (string | RegExp)[]): void {
  for (const line of expected) {
    if (typeof line === "string") assert.ok(text.includes(line), `expected ${JSON.stringify(line)} in:\n${text}`);
    else assert.match(text, line);
  }
}
