/**
 * Three things of a real node, through kubectl, on one `kvol up --host linux --nodes 1
 * --max-volumes-per-node 2 --fence-after 20s`:
 *
 * - volume limits: the node's `kvol csi-driver` plugins answer NodeGetInfo with
 *   max_volumes_per_node 2, the kubelet copies it into the CSINode (`allocatable.count: 2`), and a
 *   third pod with a disk claim stays Pending with the scheduler's FailedScheduling
 *   `0/1 nodes are available: 1 node(s) exceed max volume count.`;
 * - the kubelet's Summary API: `kubectl get --raw /api/v1/nodes/node-1/proxy/stats/summary` shows
 *   a Running pod's claim volume with its ext4's space and inodes, and the bytes a `dd` in the pod wrote;
 * - node fencing of the real disks: the node agent is frozen (SIGSTOP: the node stops reporting
 *   while its containers keep running, the case fencing is for); on a kernel without device-mapper
 *   the Node gets `StorageFenced=False`, reason `FencingRefused`, naming the missing driver; with
 *   device-mapper the node is fenced (`StorageFenced=True`, `NodeFenced`) and tainted out-of-service.
 *   Only the branch this machine's kernel allows runs; the other skips with the reason printed.
 *
 * Needs root and kubectl (skipped with the reason elsewhere; under CI=true it must run).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { probeLinuxRuntime } from "../cri/linux/runtime-requirements.ts";
import { deviceMapperUnavailable } from "../csi/drivers/disk/device-mapper.ts";
import { LinuxHost } from "../host/linux/linux-host.ts";
import type { Summary, VolumeStats } from "../kubelet/stats/stats-summary.ts";
import { suiteSkip } from "../testing/requirements.ts";
import { kubectlAgainst } from "./testing/kubectl-against.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 180_000;
const podTimeoutMs = 240_000;
const commandTimeoutMs = 90_000;
/** The fence decision comes 20 to 30 s after the node falls silent; the machine is shared and loaded. */
const fenceTimeoutMs = 120_000;
const caseTimeoutMs = 600_000;
const mebibyteBytes = 1024 * 1024;

function skipReason(): string | undefined {
  if (process.getuid?.() !== 0) return "real nodes need root";
  const kubectl = spawnSync("sh", ["-c", "command -v kubectl"], { encoding: "utf8" }).stdout.trim();
  if (kubectl === "") return "no kubectl on the PATH (install kubernetes-client)";
  return undefined;
}

function claimAndPod(name: string): string {
  return `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ${name}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 64Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "sleep 3600"]
    volumeMounts: [{name: data, mountPath: /data}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: ${name}}}]
`;
}

interface NodeCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

const suiteTitle = "a real node's volume limit, stats/summary and disk fencing";

describe(suiteTitle, { skip: suiteSkip(suiteTitle, skipReason()) }, () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-real-node-"));
  let up: KvolProcess | undefined;
  let kubeconfig = "";
  /** The frozen node agent, thawed again whatever happens. */
  let frozenPid: number | undefined;
  after(async () => {
    if (frozenPid !== undefined) process.kill(frozenPid, "SIGCONT");
    await up?.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  const { kubectl, kubectlOk, jsonOf } = kubectlAgainst(() => kubeconfig, commandTimeoutMs);

  /** Waits until the pod's container runs (a container still starting when the node freezes is the runtime's business, not this test's). */
  async function running(podName: string): Promise<void> {
    await waitFor(
      `${podName} Running`,
      async () =>
        (
          await kubectlOk([
            "get",
            "pod",
            podName,
            "-o",
            "jsonpath={.status.containerStatuses[0].state.running.startedAt}",
          ])
        ).trim() || undefined,
      podTimeoutMs,
    );
  }

  async function summaryVolume(podName: string): Promise<VolumeStats | undefined> {
    const run = await kubectl(["get", "--raw", "/api/v1/nodes/node-1/proxy/stats/summary"]);
    assert.equal(run.status, 0, `kubectl get --raw …/stats/summary: ${run.stderr}`);
    const summary = JSON.parse(run.stdout) as Summary;
    assert.equal(summary.node.nodeName, "node-1");
    return summary.pods.find((pod) => pod.podRef.name === podName)?.volume?.find((volume) => volume.name === "data");
  }

  it("starts kvol up --host linux --nodes 1 --max-volumes-per-node 2 --fence-after 20s", {
    timeout: caseTimeoutMs,
  }, async () => {
    const probe = await probeLinuxRuntime();
    if ("problems" in probe) assert.fail(probe.problems.join("; "));
    up = new KvolProcess([
      ...["up", "--host", "linux", "--nodes", "1", "--port", "0", "--data-dir", dir],
      // 20 s: two Lease renewals, so a live kubelet late by a few seconds on a loaded machine is not taken for silent.
      ...["--max-volumes-per-node", "2", "--fence-after", "20s"],
    ]);
    kubeconfig = (await startedCluster(up, startTimeoutMs)).kubeconfigPath;
    await up.waitForOutput(/Ready: 1 real node\(s\) on this machine/, startTimeoutMs);
  });

  it("writes each plugin's max_volumes_per_node into the CSINode, and a third pod exceeds the node's volume count", {
    timeout: caseTimeoutMs,
  }, async () => {
    const drivers = await waitFor(
      "disk.csi.kvol.io registered in the CSINode of node-1",
      async () => {
        const csiNode = await jsonOf<{ spec?: { drivers?: { name: string; allocatable?: { count?: number } }[] } }>([
          ...["get", "csinode", "node-1"],
        ]);
        const found = csiNode?.spec?.drivers ?? [];
        return found.some((driver) => driver.name === "disk.csi.kvol.io") ? found : undefined;
      },
      podTimeoutMs,
    );
    for (const driver of drivers) assert.deepEqual(driver.allocatable, { count: 2 }, driver.name);

    await kubectlOk(["apply", "-f", "-"], claimAndPod("first"));
    await kubectlOk(["apply", "-f", "-"], claimAndPod("second"));
    for (const name of ["first", "second"]) {
      await waitFor(
        `${name} scheduled`,
        async () => (await kubectlOk(["get", "pod", name, "-o", "jsonpath={.spec.nodeName}"])).trim() || undefined,
        podTimeoutMs,
      );
    }
    await kubectlOk(["apply", "-f", "-"], claimAndPod("third"));
    const message = await waitFor(
      "a FailedScheduling event of the third pod",
      async () => {
        const events = await jsonOf<{
          items: { reason?: string; message?: string; involvedObject?: { name?: string } }[];
        }>(["get", "events", "--field-selector", "involvedObject.name=third"]);
        return events?.items.find((event) => event.reason === "FailedScheduling")?.message;
      },
      podTimeoutMs,
    );
    assert.match(message, /^0\/1 nodes are available: 1 node\(s\) exceed max volume count\./);
    assert.equal((await kubectlOk(["get", "pod", "third", "-o", "jsonpath={.spec.nodeName}"])).trim(), "");
  });

  it("serves the kubelet's stats/summary: the claim's ext4 with what the pod wrote", {
    timeout: caseTimeoutMs,
  }, async () => {
    const before = await waitFor(
      "first's volume in the node's stats/summary",
      () => summaryVolume("first"),
      podTimeoutMs,
    );
    assert.deepEqual(before.pvcRef, { name: "first", namespace: "default" });
    // A 64 MiB disk holds an ext4 a little smaller than itself.
    assert.ok(
      before.capacityBytes > 32 * mebibyteBytes && before.capacityBytes <= 64 * mebibyteBytes,
      String(before.capacityBytes),
    );
    assert.ok(before.availableBytes > 0 && before.availableBytes < before.capacityBytes);
    assert.ok(before.inodes > 0);
    assert.equal(before.inodesUsed, before.inodes - before.inodesFree);
    assert.match(before.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    await running("first");
    // The first exec may come before the kubelet's streaming server knows the container: try again.
    await waitFor(
      "dd in first writing 8 MiB to its claim",
      async () => {
        const dd = ["dd", "if=/dev/zero", "of=/data/fill", "bs=1048576", "count=8", "conv=fsync"];
        return (await kubectl(["exec", "first", "--", ...dd])).status === 0 || undefined;
      },
      podTimeoutMs,
    );
    const grown = await waitFor(
      "the 8 MiB the pod wrote, in usedBytes",
      async () => {
        const volume = await summaryVolume("first");
        return volume !== undefined && volume.usedBytes >= before.usedBytes + 8 * mebibyteBytes ? volume : undefined;
      },
      podTimeoutMs,
    );
    assert.ok(grown.availableBytes <= before.availableBytes - 8 * mebibyteBytes);
    assert.equal(grown.inodesUsed, before.inodesUsed + 1);
  });

  async function freezeNode(): Promise<void> {
    for (const name of ["first", "second"]) await running(name);
    const before = await jsonOf<{ status?: { conditions?: NodeCondition[] } }>(["get", "node", "node-1"]);
    assert.equal(
      before?.status?.conditions?.find((condition) => condition.type === "StorageFenced"),
      undefined,
      "node-1 has a StorageFenced condition before it was frozen: its Lease renewals came over 20 s late",
    );
    const pidFile = join(dir, "nodes", "node-1", "agent.pid");
    assert.ok(existsSync(pidFile), `${pidFile} is missing`);
    frozenPid = Number(readFileSync(pidFile, "utf8").trim());
    process.kill(frozenPid, "SIGSTOP");
  }

  async function storageFenced(): Promise<NodeCondition> {
    return waitFor(
      "the node-fencing controller's StorageFenced condition on node-1",
      async () =>
        (
          await jsonOf<{ status?: { conditions?: NodeCondition[] } }>(["get", "node", "node-1"])
        )?.status?.conditions?.find((condition) => condition.type === "StorageFenced"),
      fenceTimeoutMs,
    );
  }

  it("refuses to fence the frozen node on a kernel without device-mapper, saying so on the Node", {
    timeout: caseTimeoutMs,
  }, async (t) => {
    const missing = await deviceMapperUnavailable(new LinuxHost({ nodeName: "test" }));
    if (missing === undefined) {
      t.skip("this kernel has device-mapper: the real disks are fenced, not refused (the next case)");
      return;
    }
    assert.match(up?.stderr ?? "", /--fence-after: the real disks cannot be fenced on this machine/);
    await freezeNode();
    const condition = await storageFenced();
    assert.equal(condition.status, "False");
    assert.equal(condition.reason, "FencingRefused");
    assert.equal(
      condition.message,
      `Node node-1 has stopped reporting but was not fenced: disk.csi.kvol.io (device-mapper) cannot fence: ${missing}`,
    );
  });

  it("fences the frozen node's disks through device-mapper where the kernel has it", {
    timeout: caseTimeoutMs,
  }, async (t) => {
    const missing = await deviceMapperUnavailable(new LinuxHost({ nodeName: "test" }));
    if (missing !== undefined) {
      console.log(`skipping the device-mapper fence of a real node: ${missing}`);
      t.skip(missing);
      return;
    }
    await freezeNode();
    const condition = await storageFenced();
    assert.equal(condition.status, "True", condition.message);
    assert.equal(condition.reason, "NodeFenced");
    const taints = await jsonOf<{ spec?: { taints?: { key: string; effect: string }[] } }>(["get", "node", "node-1"]);
    assert.ok(
      taints?.spec?.taints?.some(
        (taint) => taint.key === "node.kubernetes.io/out-of-service" && taint.effect === "NoExecute",
      ),
    );
  });
});
