/**
 * Three things of real nodes, through kubectl, on one `kvol up --host linux --nodes 2
 * --max-volumes-per-node 2 --fence-after 20s` (node-2 cordoned until the fencing case):
 *
 * - volume limits: the node's `kvol csi-driver` plugins answer NodeGetInfo with
 *   max_volumes_per_node 2, the kubelet copies it into the CSINode (`allocatable.count: 2`), and a
 *   third pod with a disk claim stays Pending with the scheduler's FailedScheduling
 *   `0/2 nodes are available: 1 node(s) exceed max volume count, 1 node(s) were unschedulable.`;
 * - the kubelet's Summary API: `kubectl get --raw /api/v1/nodes/node-1/proxy/stats/summary` shows
 *   a Running pod's claim volume with its ext4's space and inodes, and the bytes a `dd` in the pod wrote;
 * - node fencing of the real disks: a StatefulSet's pod appends fsynced records to its claim on
 *   node-1, and node-1's agent is frozen (SIGSTOP: the node stops reporting while its containers
 *   keep writing, the case fencing is for); node-1's loop devices are fenced (`StorageFenced=True`,
 *   `NodeFenced`, the fenced-at annotation) and tainted out-of-service, the pod moves to node-2 and
 *   runs there with the records, and no record of the old container lands after the new one's
 *   first (never two writers); thawed, node-1 tears down its stale mounts and is unfenced.
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
import type { Summary, VolumeStats } from "../kubelet/stats/stats-summary.ts";
import { RealClock } from "../runtime/real-clock.ts";
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

/** One replica appending `<token> <n>` records, each fsynced (dd conv=fsync), the token the container's own. */
const writerStatefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  replicas: 1
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: writer
        image: busybox
        command:
        - sh
        - -c
        - |
          t=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
          i=0
          while true; do
            i=$((i+1))
            echo "$t $i" | dd of=/data/log oflag=append conv=notrunc,fsync 2>/dev/null || exit 1
            sleep 0.2
          done
        volumeMounts: [{name: data, mountPath: /data}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 64Mi}}
`;

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

/** The loop devices bound over each node's links under `nodesDir` (`losetup -l`'s backing files). */
function loopDevicesByNode(nodesDir: string): Map<string, string[]> {
  const listed = spawnSync("losetup", ["-l", "-n", "--raw", "-O", "NAME,BACK-FILE"], { encoding: "utf8" }).stdout;
  const byNode = new Map<string, string[]>();
  for (const line of listed.split("\n")) {
    const [device, backing] = line.split(" ");
    if (device === undefined || backing === undefined || !backing.startsWith(`${nodesDir}/`)) continue;
    const node = backing.slice(nodesDir.length + 1).split("/")[0] ?? "";
    byNode.set(node, [...(byNode.get(node) ?? []), device]);
  }
  return byNode;
}

function sectorsOf(device: string): number {
  return Number(readFileSync(`/sys/block/${device.slice("/dev/".length)}/size`, "utf8").trim());
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

  it("starts kvol up --host linux --nodes 2 --max-volumes-per-node 2 --fence-after 20s, node-2 cordoned", {
    timeout: caseTimeoutMs,
  }, async () => {
    const probe = await probeLinuxRuntime();
    if ("problems" in probe) assert.fail(probe.problems.join("; "));
    up = new KvolProcess([
      ...["up", "--host", "linux", "--nodes", "2", "--port", "0", "--data-dir", dir],
      // 20 s: two Lease renewals, so a live kubelet late by a few seconds on a loaded machine is not taken for silent.
      ...["--max-volumes-per-node", "2", "--fence-after", "20s"],
    ]);
    kubeconfig = (await startedCluster(up, startTimeoutMs)).kubeconfigPath;
    await up.waitForOutput(/Ready: 2 real node\(s\) on this machine/, startTimeoutMs);
    await kubectlOk(["cordon", "node-2"]);
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
    assert.match(
      message,
      /^0\/2 nodes are available: 1 node\(s\) exceed max volume count, 1 node\(s\) were unschedulable\./,
    );
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

  async function nodeOf(podName: string): Promise<string> {
    return (await kubectlOk(["get", "pod", podName, "-o", "jsonpath={.spec.nodeName}"])).trim();
  }

  async function fencedCondition(status: "True" | "False"): Promise<NodeCondition> {
    return waitFor(
      `StorageFenced=${status} on node-1`,
      async () => {
        const node = await jsonOf<{ status?: { conditions?: NodeCondition[] } }>(["get", "node", "node-1"]);
        const condition = node?.status?.conditions?.find((candidate) => candidate.type === "StorageFenced");
        return condition?.status === status ? condition : undefined;
      },
      fenceTimeoutMs,
    );
  }

  /** The writer's records as the claim holds them: `<container token> <n>` lines. */
  async function records(podName: string): Promise<string[]> {
    const run = await kubectl(["exec", podName, "--", "cat", "/data/log"]);
    assert.equal(run.status, 0, `kubectl exec ${podName} cat /data/log: ${run.stderr}`);
    return run.stdout.split("\n").filter((line) => line !== "");
  }

  it("fences a frozen node's loop devices, moves its StatefulSet's pod to node-2, never two writers, and unfences it once back", {
    timeout: caseTimeoutMs,
  }, async () => {
    const clock = new RealClock();
    // node-1 takes two disks: first's and second's make room for web-0's.
    await kubectlOk(["delete", "pod", "first", "second", "third", "--timeout=240s"]);
    await kubectlOk(["apply", "-f", "-"], writerStatefulSet);
    await running("web-0");
    assert.equal(await nodeOf("web-0"), "node-1");
    await waitFor(
      "web-0's first records",
      async () => ((await records("web-0")).length >= 5 ? true : undefined),
      podTimeoutMs,
    );
    await kubectlOk(["uncordon", "node-2"]);
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
    const frozenAtMs = clock.now();

    const fenced = await fencedCondition("True");
    const fencedAtMs = clock.now();
    assert.equal(fenced.reason, "NodeFenced", fenced.message);
    assert.match(
      fenced.message ?? "",
      /^Node node-1 has not reported for \d+s; its access to disk\.csi\.kvol\.io \(loop device\) is fenced and it is tainted node\.kubernetes\.io\/out-of-service$/,
    );
    const node = await jsonOf<{
      metadata?: { annotations?: Record<string, string> };
      spec?: { taints?: { key: string; effect: string }[] };
    }>(["get", "node", "node-1"]);
    assert.ok(
      node?.spec?.taints?.some(
        (taint) => taint.key === "node.kubernetes.io/out-of-service" && taint.effect === "NoExecute",
      ),
    );
    assert.match(node?.metadata?.annotations?.["fencing.kvol.io/fenced-at"] ?? "", /^\d{4}-\d\d-\d\dT/);
    assert.equal(node?.metadata?.annotations?.["fencing.kvol.io/fenced-storage"], "disk.csi.kvol.io (loop device)");
    const events = await jsonOf<{ items: { reason?: string }[] }>([
      ...["get", "events", "--field-selector", "involvedObject.name=node-1"],
    ]);
    assert.ok(events?.items.some((event) => event.reason === "NodeFenced"));

    await waitFor(
      "web-0 Running on node-2",
      async () => ((await nodeOf("web-0").catch(() => "")) === "node-2" ? true : undefined),
      podTimeoutMs,
    );
    await running("web-0");
    const movedAtMs = clock.now();
    console.log(
      `node-1 frozen → fenced in ${((fencedAtMs - frozenAtMs) / 1000).toFixed(1)} s → web-0 Running on node-2 ${((movedAtMs - fencedAtMs) / 1000).toFixed(1)} s later`,
    );
    // On the machine: node-1's loop device of the disk has no capacity left, node-2's has the disk's.
    const devices = loopDevicesByNode(join(dir, "disks", "nodes"));
    assert.ok((devices.get("node-1") ?? []).length > 0, JSON.stringify([...devices]));
    for (const device of devices.get("node-1") ?? []) assert.equal(sectorsOf(device), 0, `node-1's ${device}`);
    assert.deepEqual(
      (devices.get("node-2") ?? []).map((device) => sectorsOf(device)),
      [64 * 2048],
      "node-2's device of web-0's 64Mi disk",
    );
    // The old container is still writing on the frozen node; the new one writes too. Give both time.
    const lines = await waitFor(
      "20 records of the new container",
      async () => {
        const all = await records("web-0");
        const tokens = [...new Set(all.map((line) => line.split(" ")[0]))];
        return tokens.length === 2 && all.filter((line) => line.startsWith(`${tokens[1]} `)).length >= 20
          ? all
          : undefined;
      },
      podTimeoutMs,
    );
    const [oldToken, newToken] = [...new Set(lines.map((line) => line.split(" ")[0]))];
    const firstNew = lines.findIndex((line) => line.startsWith(`${newToken} `));
    assert.ok(firstNew >= 5, "the new container reads the old one's records");
    assert.deepEqual(
      lines.slice(firstNew).filter((line) => line.startsWith(`${oldToken} `)),
      [],
      "no record of the old container after the new one's first",
    );

    process.kill(frozenPid, "SIGCONT");
    frozenPid = undefined;
    const thawedAtMs = clock.now();
    const unfenced = await fencedCondition("False");
    console.log(`node-1 thawed → unfenced in ${((clock.now() - thawedAtMs) / 1000).toFixed(1)} s`);
    assert.equal(unfenced.reason, "NodeUnfenced", unfenced.message);
    const taints = await jsonOf<{ spec?: { taints?: { key: string }[] } }>(["get", "node", "node-1"]);
    assert.equal(
      taints?.spec?.taints?.some((taint) => taint.key === "node.kubernetes.io/out-of-service") ?? false,
      false,
    );
  });
});
