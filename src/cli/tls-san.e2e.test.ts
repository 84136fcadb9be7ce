/**
 * `kvol server --tls-san`: kubectl reaches the API server by an extra IP address and an extra DNS
 * name and verifies its certificate against the kubeconfig's CA (DATA/ca.crt). Restarted with
 * another list, the server's certificate holds the new names and not the old ones, while the CA
 * file, already handed to clients, stays the same. Runs under CI=true or KVOL_E2E=1 (kubectl).
 *
 * 127.0.0.0/8 is loopback on Linux: the server listens on every address, and 127.1.2.3 is none of
 * this machine's interface addresses, so only --tls-san puts it in the certificate. The DNS name is
 * checked with kubectl's --tls-server-name, connecting to 127.0.0.1.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { suiteSkip, underCi } from "../testing/requirements.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { type CommandRun, runCommand } from "./testing/run-command.ts";

/** Patience only: a loaded machine starts node and tsx slowly. */
const startTimeoutMs = 60_000;
const commandTimeoutMs = 30_000;
const title = "kvol server --tls-san with kubectl";

function skipReason(): string | undefined {
  if (!underCi && process.env.KVOL_E2E !== "1") return "starts kvol server and runs kubectl; set KVOL_E2E=1 to run it";
  if (spawnSync("sh", ["-c", "command -v kubectl"]).status !== 0) return "no kubectl on the PATH";
  return undefined;
}

describe(title, { skip: suiteSkip(title, skipReason()) }, () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-tls-san-"));
  const dataDir = join(dir, "data");
  const processes: KvolProcess[] = [];
  after(async () => {
    for (const kvol of processes) await kvol.stop("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  /** `kvol server` on every address and a free port, with these --tls-san flags; its kubeconfig and port. */
  async function startServer(tlsSans: readonly string[]) {
    const args = ["server", "--port", "0", "--address", "0.0.0.0", "--data-dir", dataDir];
    const server = new KvolProcess([...args, ...tlsSans.flatMap((san) => ["--tls-san", san])]);
    processes.push(server);
    const cluster = await startedCluster(server, startTimeoutMs);
    return { server, kubeconfig: cluster.kubeconfigPath, port: new URL(cluster.url).port };
  }

  /** `kubectl get namespaces` with the kubeconfig's CA and token, at another server address. */
  function kubectlAt(kubeconfig: string, server: string, extra: readonly string[] = []): Promise<CommandRun> {
    const env = { PATH: process.env.PATH ?? "", HOME: dir, KUBECONFIG: kubeconfig };
    return runCommand(
      "kubectl",
      ["--server", server, ...extra, "get", "namespaces", "-o", "name"],
      env,
      commandTimeoutMs,
    );
  }

  it("serves a certificate for the extra IP and DNS name, re-issued for a new list at the next start", async () => {
    const first = await startServer(["127.1.2.3,kvol.example.test", "*.lb.example.test"]);
    const caBefore = readFileSync(join(dataDir, "ca.crt"), "utf8");
    const byIp = await kubectlAt(first.kubeconfig, `https://127.1.2.3:${first.port}`);
    assert.equal(byIp.status, 0, byIp.stderr);
    assert.match(byIp.stdout, /^namespace\/default$/m);
    for (const name of ["kvol.example.test", "api.lb.example.test"]) {
      const byName = await kubectlAt(first.kubeconfig, `https://127.0.0.1:${first.port}`, ["--tls-server-name", name]);
      assert.equal(byName.status, 0, `${name}: ${byName.stderr}`);
    }
    const other = await kubectlAt(first.kubeconfig, `https://127.4.5.6:${first.port}`);
    assert.notEqual(other.status, 0);
    assert.match(other.stderr, /x509: certificate is valid for .*127\.1\.2\.3.*, not 127\.4\.5\.6/);
    assert.equal(await first.server.stop("SIGTERM"), 0, first.server.stderr);

    const second = await startServer(["127.4.5.6"]);
    assert.equal(readFileSync(join(dataDir, "ca.crt"), "utf8"), caBefore, "the CA is kept");
    const byNewIp = await kubectlAt(second.kubeconfig, `https://127.4.5.6:${second.port}`);
    assert.equal(byNewIp.status, 0, byNewIp.stderr);
    const byOldIp = await kubectlAt(second.kubeconfig, `https://127.1.2.3:${second.port}`);
    assert.match(byOldIp.stderr, /x509: certificate is valid for .*, not 127\.1\.2\.3/);
    const byOldName = await kubectlAt(second.kubeconfig, `https://127.0.0.1:${second.port}`, [
      ...["--tls-server-name", "kvol.example.test"],
    ]);
    assert.match(byOldName.stderr, /x509: certificate is valid for .*, not kvol\.example\.test/);
    assert.equal(await second.server.stop("SIGTERM"), 0, second.server.stderr);
  });

  it("refuses a bad --tls-san with the flag's name, before starting", async () => {
    const server = new KvolProcess(["server", "--port", "0", "--data-dir", dataDir, "--tls-san", "10.0.0.1,api_lb"]);
    processes.push(server);
    assert.equal(await server.exitStatus(), 2);
    assert.match(
      server.stderr,
      /^kvol server: --tls-san: "api_lb" is not a valid IP address, DNS name or DNS name with a leading wildcard label \(\*\.example\.com\)$/m,
    );
  });
});
