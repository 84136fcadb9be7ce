/**
 * The live clusters the web UI's browser tests open the page on, started once per suite and
 * shared by its tests: `kvol up` (nodes in its own process), and `kvol server` with `kvol node`
 * agents as processes of their own (docs/distributed.md). Each gives the page's address over
 * HTTPS (the port answers both; a token then never travels in the clear), a way to apply
 * manifests with its kubeconfig, and a user of its own: a line of the server's token file.
 */
import assert from "node:assert/strict";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DataDir } from "../../embedded/data-dir.ts";
import { type KvolUp, startKvolUp, stopKvolUp } from "../../kvol-up-process.ts";
import { KvolProcess, startedCluster } from "../../testing/kvol-process.ts";
import { runCommand } from "../../testing/run-command.ts";

const kvolBin = fileURLToPath(new URL("../../../../bin/kvol.js", import.meta.url));
/** Generous: eight engineers' tests share two cores. */
const startTimeoutMs = 120_000;
const commandTimeoutMs = 60_000;

export interface LiveCluster {
  /** The web UI with the administrator's token in its fragment, over HTTPS. */
  adminPageUrl: string;
  kubeconfig: string;
  /** `kvol apply -f -` of `yaml`; fails the test on an error. */
  apply(yaml: string): Promise<void>;
  /** A new user named `name` with a token of its own (a line of the token file): its page address. */
  addUser(name: string, token: string): string;
  stop(): Promise<void>;
}

/** The printed `http://…/ui/#token=…` on the same port over TLS. */
function overTls(url: string): string {
  return url.replace(/^http:/, "https:");
}

function pageUrlFor(adminPageUrl: string, token: string): string {
  return adminPageUrl.replace(/#token=.*$/, `#token=${encodeURIComponent(token)}`);
}

function applier(kubeconfig: string, workDir: string): (yaml: string) => Promise<void> {
  let count = 0;
  return async (yaml) => {
    const file = join(workDir, `manifest-${++count}.yaml`);
    writeFileSync(file, yaml);
    const run = await runCommand(
      process.execPath,
      [kvolBin, "apply", "--kubeconfig", kubeconfig, "-f", file],
      process.env,
      commandTimeoutMs,
    );
    assert.equal(run.status, 0, run.stderr);
  };
}

function webUiUrlOf(output: string): string {
  const url = /^web UI: (\S+)$/m.exec(output)?.[1];
  assert.ok(url !== undefined, `no web UI address printed:\n${output}`);
  return overTls(url);
}

export async function startLiveKvolUp(dataDir: string): Promise<LiveCluster & { process: KvolUp }> {
  const cluster = await startKvolUp(dataDir);
  const adminPageUrl = webUiUrlOf(cluster.output());
  return {
    process: cluster,
    adminPageUrl,
    kubeconfig: cluster.kubeconfig,
    apply: applier(cluster.kubeconfig, dataDir),
    addUser: (name, token) => {
      appendFileSync(new DataDir(dataDir).tokenFile, `${token},${name},${name}\n`);
      return pageUrlFor(adminPageUrl, token);
    },
    stop: () => stopKvolUp(cluster),
  };
}

/** `kvol server` and a `kvol node` per name, each its own process, once every node runs. */
export async function startServerWithNodes(dataDir: string, nodeNames: readonly string[]): Promise<LiveCluster> {
  const processes: KvolProcess[] = [];
  const stop = async () => {
    for (const kvol of processes.reverse()) await kvol.stop("SIGTERM");
  };
  try {
    const server = new KvolProcess([
      "server",
      "--port",
      "0",
      "--data-dir",
      dataDir,
      "--node-tokens",
      nodeNames.join(","),
    ]);
    processes.push(server);
    const { url, caFile, kubeconfigPath } = await startedCluster(server, startTimeoutMs);
    const data = new DataDir(dataDir);
    const nodes = nodeNames.map((name) => {
      // kvol node sends its token over HTTPS only, trusting the data directory's CA.
      const node = new KvolProcess([
        ...["node", "--server", url, "--certificate-authority", caFile],
        ...["--name", name, "--token-file", data.nodeTokenFile(name)],
      ]);
      processes.push(node);
      return node;
    });
    await Promise.all(nodes.map((node) => node.waitForOutput(/is running/, startTimeoutMs)));
    const adminPageUrl = webUiUrlOf((await server.waitForOutput(/^web UI: \S+$/m, startTimeoutMs)).input ?? "");
    return {
      adminPageUrl,
      kubeconfig: kubeconfigPath,
      apply: applier(kubeconfigPath, dataDir),
      addUser: (name, token) => {
        appendFileSync(data.tokenFile, `${token},${name},${name}\n`);
        return pageUrlFor(adminPageUrl, token);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
