/**
 * `kvol csi-driver fuse.csi.kvol.io` joining a `kvol server` over HTTPS with the connection flags
 * `kvol node` takes: a kubeconfig kubectl itself wrote and uses (the server, the cluster's CA, a
 * node's token), or `--server` with `--certificate-authority` and `--token-file`. On start the
 * plugin lists from the API the mounts it served, so a server it cannot trust or a token the server
 * refuses ends it with status 1 and the reason. Needs bindfs (the plugin's FUSE program) and kubectl.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fuseDriverName } from "../csi/drivers/common/constants.ts";
import { unixEndpoint } from "../csi/grpc/endpoint.ts";
import { suiteSkip } from "../testing/requirements.ts";
import { DataDir } from "./embedded/data-dir.ts";
import { KvolProcess, type StartedCluster, startedCluster } from "./testing/kvol-process.ts";
import { runCommand } from "./testing/run-command.ts";

/** Patience only: a loaded machine starts node and tsx slowly. */
const startTimeoutMs = 60_000;
const commandTimeoutMs = 30_000;
const nodeName = "node-a";
const title = "kvol csi-driver with a kvol server over HTTPS";

function missingTool(): string | undefined {
  for (const tool of ["bindfs", "kubectl"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return `${tool} is not on PATH`;
  }
  return undefined;
}

describe(title, { skip: suiteSkip(title, missingTool()) }, () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-csi-server-"));
  const dataDir = join(dir, "data");
  const kubeconfig = join(dir, "plugin.kubeconfig");
  const processes: KvolProcess[] = [];
  let cluster: StartedCluster;
  let tokenFile = "";

  before(async () => {
    const server = new KvolProcess(["server", "--port", "0", "--data-dir", dataDir, "--node-tokens", nodeName]);
    processes.push(server);
    cluster = await startedCluster(server, startTimeoutMs);
    tokenFile = new DataDir(dataDir).nodeTokenFile(nodeName);
  });
  after(async () => {
    for (const kvol of processes) await kvol.stop("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  /** The plugin process, its socket in the test's own directory. */
  function driver(name: string, connection: readonly string[]): KvolProcess {
    const endpoint = unixEndpoint(join(dir, name, "csi.sock"));
    const args = ["csi-driver", fuseDriverName, "--endpoint", endpoint, "--node-id", nodeName, ...connection];
    const kvol = new KvolProcess(args);
    processes.push(kvol);
    return kvol;
  }

  it("connects with a kubeconfig that kubectl config wrote and kubectl uses", async () => {
    const env = { PATH: process.env.PATH ?? "", HOME: dir, KUBECONFIG: kubeconfig };
    const token = readFileSync(tokenFile, "utf8").trim();
    for (const args of [
      ["config", "set-cluster", "kvol", `--server=${cluster.url}`, `--certificate-authority=${cluster.caFile}`],
      ["config", "set-credentials", "plugin", `--token=${token}`],
      ["config", "set-context", "kvol", "--cluster=kvol", "--user=plugin"],
      ["config", "use-context", "kvol"],
    ]) {
      const run = await runCommand("kubectl", [...args], env, commandTimeoutMs);
      assert.equal(run.status, 0, run.stderr);
    }
    const kubectl = await runCommand("kubectl", ["get", "persistentvolumes"], env, commandTimeoutMs);
    assert.equal(kubectl.status, 0, `kubectl with the same kubeconfig: ${kubectl.stderr}`);
    const plugin = driver("kubeconfig", ["--kubeconfig", kubeconfig]);
    await plugin.waitForOutput(
      /^kvol csi-driver: serving fuse\.csi\.kvol\.io on unix:\/\/\S+ as node node-a$/m,
      startTimeoutMs,
    );
    assert.doesNotMatch(plugin.stderr, /no API client|could not re-establish/);
    assert.equal(await plugin.stop("SIGTERM"), 0, plugin.stderr);
  });

  it("connects with --server, --certificate-authority and --token-file", async () => {
    const plugin = driver("flags", [
      ...["--server", cluster.url, "--certificate-authority", cluster.caFile, "--token-file", tokenFile],
    ]);
    await plugin.waitForOutput(/^kvol csi-driver: serving fuse\.csi\.kvol\.io/m, startTimeoutMs);
    assert.doesNotMatch(plugin.stderr, /no API client|could not re-establish/);
    assert.equal(await plugin.stop("SIGTERM"), 0, plugin.stderr);
  });

  it("ends with status 1 and the reason when the server refuses the token", async () => {
    const refused = driver("refused", ["--kubeconfig", kubeconfig, "--token", "not-a-token"]);
    assert.equal(await refused.exitStatus(), 1, refused.stderr);
    assert.match(refused.stderr, /^kvol csi-driver: .*Unauthorized/m);
  });

  it("ends with status 1 and what to do when the server's certificate is not trusted", async () => {
    const untrusted = driver("untrusted", ["--server", cluster.url, "--token-file", tokenFile]);
    assert.equal(await untrusted.exitStatus(), 1, untrusted.stderr);
    assert.match(
      untrusted.stderr,
      /^kvol csi-driver: .*the server's certificate is not trusted: give the certificate authority that signed it/m,
    );
  });
});
