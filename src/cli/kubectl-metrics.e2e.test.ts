/**
 * The real kubectl reads the control plane's Prometheus metrics from `kvol up`:
 * `kubectl get --raw /metrics` prints apiserver_request_total with Kubernetes' labels, counting the
 * request kubectl just made; `kubectl get --raw /api/v1/nodes/NODE/proxy/metrics` prints the node's
 * kubelet metrics (volume_manager_total_volumes, storage_operation_duration_seconds). Runs with KVOL_E2E=1 or under CI=true; without kubectl on the PATH it
 * skips with a reason, except under CI=true, where it fails.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { KvolProcess } from "./testing/kvol-process.ts";
import { type CommandRun as Run, runCommand } from "./testing/run-command.ts";

const startTimeoutMs = 60_000;
const underCi = process.env.CI === "true";
const kubectlFound = spawnSync("sh", ["-c", "command -v kubectl"], { encoding: "utf8" }).status === 0;

function skipReasonOf(): string | undefined {
  if (!underCi && process.env.KVOL_E2E !== "1") return "starts kvol up; set KVOL_E2E=1 to run it";
  if (!kubectlFound && !underCi) return "no kubectl on the PATH (install kubernetes-client)";
  return undefined;
}

describe("kubectl get --raw /metrics against kvol up", { skip: skipReasonOf() ?? false }, () => {
  let dataDir: string;
  let kvol: KvolProcess;
  let kubeconfig: string;

  function kubectl(args: readonly string[], timeoutMs = 60_000): Promise<Run> {
    return runCommand("kubectl", args, { ...process.env, KUBECONFIG: kubeconfig }, timeoutMs);
  }

  before(async () => {
    assert.ok(kubectlFound, "CI=true requires kubectl on the PATH for the end-to-end test");
    dataDir = mkdtempSync(join(tmpdir(), "kvol-metrics-e2e-"));
    kvol = new KvolProcess(["up", "--port", "0", "--nodes", "1", "--data-dir", join(dataDir, "data")]);
    await kvol.waitForOutput(/Ready: \d+ node/, startTimeoutMs);
    kubeconfig = (await kvol.waitForOutput(/^kubeconfig: (.+)$/m, startTimeoutMs))[1] ?? "";
  });

  after(async () => {
    await kvol?.stop("SIGINT");
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it("prints apiserver_request_total, counting kubectl's own list of nodes", async () => {
    const listed = await kubectl(["get", "nodes"]);
    assert.equal(listed.status, 0, listed.stderr);
    const run = await kubectl(["get", "--raw", "/metrics"]);
    assert.equal(run.status, 0, `kubectl get --raw /metrics failed:\n${run.stderr}`);
    assert.match(run.stdout, /^# TYPE apiserver_request_total counter$/m);
    assert.match(
      run.stdout,
      /^apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="nodes",subresource="",scope="cluster",component="apiserver",code="200"\} [1-9]\d*$/m,
    );
    assert.match(run.stdout, /^# HELP attach_detach_controller_attachdetach_controller_forced_detaches /m);
  });

  it("prints a node's kubelet metrics through the node proxy", async () => {
    const names = await kubectl(["get", "nodes", "-o", "jsonpath={.items[0].metadata.name}"]);
    assert.equal(names.status, 0, names.stderr);
    const nodeName = names.stdout.trim();
    assert.notEqual(nodeName, "");
    const run = await kubectl(["get", "--raw", `/api/v1/nodes/${nodeName}/proxy/metrics`]);
    assert.equal(run.status, 0, `kubectl get --raw of the node's metrics failed:\n${run.stderr}`);
    assert.match(run.stdout, /^# HELP volume_manager_total_volumes Number of volumes in Volume Manager$/m);
    assert.match(run.stdout, /^# TYPE volume_manager_total_volumes gauge$/m);
    assert.match(run.stdout, /^# TYPE storage_operation_duration_seconds histogram$/m);
  });
});
