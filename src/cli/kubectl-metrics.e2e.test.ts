/**
 * The real kubectl reads the control plane's Prometheus metrics from `kvol up`:
 * `kubectl get --raw /metrics` prints apiserver_request_total with Kubernetes' labels, counting the
 * request kubectl just made; `kubectl get --raw /api/v1/nodes/NODE/proxy/metrics` prints the node's
 * kubelet metrics (volume_manager_total_volumes, storage_operation_duration_seconds), and
 * `…/proxy/stats/summary` the kubelet's Summary API with a pod's claim volume. Runs with KVOL_E2E=1 or under CI=true; without kubectl on the PATH it
 * skips with a reason, except under CI=true, where it fails.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Summary } from "../kubelet/stats/stats-summary.ts";
import { KvolProcess } from "./testing/kvol-process.ts";
import { type CommandRun as Run, runCommand } from "./testing/run-command.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 60_000;
/** A pod with a claim of the default class running on a loaded machine. */
const podTimeoutMs = 120_000;

const claimAndPod = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data }
spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
---
apiVersion: v1
kind: Pod
metadata: { name: app }
spec:
  containers: [{ name: main, image: busybox, command: [sleep, "3600"], volumeMounts: [{ name: data, mountPath: /data }] }]
  volumes: [{ name: data, persistentVolumeClaim: { claimName: data } }]
`;

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

  it("prints the node's stats/summary with the pod's claim volume through the node proxy", {
    timeout: podTimeoutMs * 2,
  }, async () => {
    const applied = await runCommand(
      "kubectl",
      ["apply", "-f", "-"],
      { ...process.env, KUBECONFIG: kubeconfig },
      60_000,
      claimAndPod,
    );
    assert.equal(applied.status, 0, applied.stderr);
    const nodeName = (await kubectl(["get", "pod", "app", "-o", "jsonpath={.spec.nodeName}"])).stdout.trim();
    const volume = await waitFor(
      "the pod's claim volume in the node's stats/summary",
      async () => {
        const node =
          nodeName === ""
            ? (await kubectl(["get", "pod", "app", "-o", "jsonpath={.spec.nodeName}"])).stdout.trim()
            : nodeName;
        if (node === "") return undefined;
        const run = await kubectl(["get", "--raw", `/api/v1/nodes/${node}/proxy/stats/summary`]);
        assert.equal(run.status, 0, `kubectl get --raw of the node's stats/summary failed:\n${run.stderr}`);
        const summary = JSON.parse(run.stdout) as Summary;
        assert.equal(summary.node.nodeName, node);
        return summary.pods.find((pod) => pod.podRef.name === "app")?.volume?.[0];
      },
      podTimeoutMs,
    );
    assert.equal(volume.name, "data");
    assert.deepEqual(volume.pvcRef, { name: "data", namespace: "default" });
    assert.ok(volume.capacityBytes > 0 && volume.capacityBytes <= 1024 ** 3, `capacity ${volume.capacityBytes}`);
    assert.ok(volume.availableBytes > 0 && volume.availableBytes <= volume.capacityBytes);
    assert.equal(volume.inodesUsed, volume.inodes - volume.inodesFree);
    assert.match(volume.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});
