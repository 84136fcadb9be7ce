/**
 * The real kubectl against `kvol up`, for field validation and namespaces: `apply --validate=strict`
 * with an unknown field is refused with kube-apiserver's 400, `--validate=warn` drops the field
 * with a warning, nothing is created in a namespace that does not exist, and `delete namespace`
 * takes the namespace's content with it. Runs with KVOL_E2E=1 or under CI=true (where a missing
 * kubectl fails it).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { RealClock } from "../runtime/real-clock.ts";
import { type CommandRun as Run, runCommand } from "./testing/run-command.ts";

const kvolBin = join(fileURLToPath(new URL("../../", import.meta.url)), "bin", "kvol.js");
const clock = new RealClock();
const startTimeoutMs = 30_000;

const claimWithBogusField = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: typo
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
  bogusField: oops
`;

function kubectl(kubeconfig: string, args: readonly string[], timeoutMs = 60_000): Promise<Run> {
  return runCommand("kubectl", args, { ...process.env, KUBECONFIG: kubeconfig }, timeoutMs);
}

async function startKvolUp(dataDir: string): Promise<{ process: ChildProcess; kubeconfig: string }> {
  const child = spawn(process.execPath, [kvolBin, "up", "--port", "0", "--data-dir", dataDir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8");
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const deadline = clock.now() + startTimeoutMs;
  while (clock.now() < deadline && !/Ready: \d+ node/.test(output) && child.exitCode === null) await clock.sleep(100);
  const kubeconfig = /^kubeconfig: (.+)$/m.exec(output)?.[1];
  assert.ok(kubeconfig !== undefined && /Ready: \d+ node/.test(output), `kvol up did not start:\n${output}`);
  return { process: child, kubeconfig };
}

const underCi = process.env.CI === "true";
const hasKubectl = spawnSync("sh", ["-c", "command -v kubectl"]).status === 0;

function skipReasonOf(): string | undefined {
  if (!underCi && process.env.KVOL_E2E !== "1") return "starts kvol up; set KVOL_E2E=1 to run it";
  if (!hasKubectl && !underCi) return "no kubectl on the PATH (install kubernetes-client)";
  return undefined;
}
const skipReason = skipReasonOf();

describe("kubectl: field validation and namespaces", { skip: skipReason ?? false }, () => {
  let dataDir: string;
  let cluster: { process: ChildProcess; kubeconfig: string } | undefined;

  before(async () => {
    assert.ok(hasKubectl, "CI=true requires kubectl on the PATH for the end-to-end test");
    dataDir = mkdtempSync(join(tmpdir(), "kvol-validation-e2e-"));
    cluster = await startKvolUp(dataDir);
  });

  after(async () => {
    if (cluster?.process.exitCode === null) {
      cluster.process.kill("SIGINT");
      for (let i = 0; i < 100 && cluster.process.exitCode === null; i++) await clock.sleep(100);
      cluster.process.kill("SIGKILL");
    }
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses an unknown field under --validate=strict and drops it with a warning under --validate=warn", async () => {
    const kubeconfig = cluster?.kubeconfig ?? "";
    const manifest = join(dataDir, "typo.yaml");
    writeFileSync(manifest, claimWithBogusField);
    const strict = await kubectl(kubeconfig, ["apply", "--validate=strict", "-f", manifest]);
    assert.notEqual(strict.status, 0);
    assert.match(
      strict.stderr,
      /Error from server \(BadRequest\): error when creating ".*typo\.yaml": PersistentVolumeClaim in version "v1" cannot be handled as a PersistentVolumeClaim: strict decoding error: unknown field "spec\.bogusField"/,
    );
    assert.notEqual((await kubectl(kubeconfig, ["get", "pvc", "typo"])).status, 0, "nothing was created");

    const warned = await kubectl(kubeconfig, ["apply", "--validate=warn", "-f", manifest]);
    assert.equal(warned.status, 0, warned.stderr);
    assert.match(warned.stderr, /Warning: unknown field "spec\.bogusField"/);
    const stored = await kubectl(kubeconfig, ["get", "pvc", "typo", "-o", "json"]);
    assert.equal((JSON.parse(stored.stdout) as { spec: Record<string, unknown> }).spec.bogusField, undefined);
  });

  it("creates nothing in a missing namespace and deletes a namespace with its content", async () => {
    const kubeconfig = cluster?.kubeconfig ?? "";
    const ghost = await kubectl(kubeconfig, [
      "create",
      "configmap",
      "settings",
      "-n",
      "ghost-ns",
      "--from-literal=k=v",
    ]);
    assert.notEqual(ghost.status, 0);
    assert.match(ghost.stderr, /namespaces "ghost-ns" not found/);

    assert.equal((await kubectl(kubeconfig, ["create", "namespace", "team-a"])).status, 0);
    const created = await kubectl(kubeconfig, [
      "create",
      "configmap",
      "settings",
      "-n",
      "team-a",
      "--from-literal=k=v",
    ]);
    assert.equal(created.status, 0, created.stderr);
    const deleted = await kubectl(kubeconfig, ["delete", "namespace", "team-a"], 120_000);
    assert.equal(deleted.status, 0, deleted.stderr);
    assert.match(deleted.stdout, /namespace "team-a" deleted/);
    const gone = await kubectl(kubeconfig, ["get", "namespace", "team-a"]);
    assert.match(gone.stderr, /namespaces "team-a" not found/);
    const contents = await kubectl(kubeconfig, ["get", "configmaps", "-n", "team-a", "-o", "name"]);
    assert.equal(contents.stdout.trim(), "");

    const refused = await kubectl(kubeconfig, ["delete", "namespace", "kube-system"]);
    assert.match(refused.stderr, /namespaces "kube-system" is forbidden: this namespace may not be deleted/);
  });
});
