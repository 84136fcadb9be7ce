/**
 * Real nodes end to end: `kvol server` with `kvol node --host linux` joining it, and `kvol up --host
 * linux`, the same in one command. A busybox pod with an emptyDir (or a hostPath) runs as a real
 * container, its file appears on the machine under the pod's volume directory and its output in the
 * container log; stopping leaves no container process, cgroup, container layer or mount behind.
 * Needs root and the tools the Linux runtime needs (skipped with the reason elsewhere, except under
 * CI=true).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { nodeCgroupDir } from "../cmd/linux-node-agent.ts";
import { probeLinuxRuntime } from "../cri/linux/runtime-requirements.ts";
import { cgroupPids } from "../host/linux/cgroup.ts";
import { requireOrSkip } from "../host/linux/private-mount-namespace.ts";
import { isProcessAlive } from "../host/linux/process-state.ts";
import { mountsUnder } from "../host/linux/scratch-dir.ts";
import { DataDir } from "./embedded/data-dir.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { startRealNode } from "./testing/real-node.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 30_000;
const waitMs = 30_000;
/** Unique on the machine: the node's cgroup is named after it, and other test runs may run nodes too. */
const nodeName = `linux-${process.pid}`;

describe("kvol node --host linux", () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-linux-node-"));
  const processes: KvolProcess[] = [];
  after(async () => {
    for (const kvol of processes.reverse()) await kvol.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs a busybox pod as a real container whose emptyDir file the machine sees, and leaves nothing behind", async (t) => {
    const probe = await probeLinuxRuntime();
    if (!requireOrSkip(t, "problems" in probe ? probe.problems.join("; ") : undefined) || "problems" in probe) return;
    const server = new KvolProcess(["server", "--port", "0", "--data-dir", dir, "--node-tokens", nodeName]);
    processes.push(server);
    const cluster = await startedCluster(server, startTimeoutMs);
    const { url, fetch } = cluster;
    const data = new DataDir(dir);
    const node = await startRealNode({ cluster, dataDir: dir, nodeName, timeoutMs: startTimeoutMs, processes });

    const headers = { Authorization: `Bearer ${data.ensureAdminToken()}`, "Content-Type": "application/json" };
    const response = await fetch(`${url}/api/v1/namespaces/default/pods`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "writer" },
        spec: {
          containers: [
            {
              name: "main",
              image: "busybox",
              command: ["sh", "-c", "trap 'exit 0' TERM; echo hello > /scratch/hello; echo written; sleep 3600 & wait"],
              volumeMounts: [{ name: "scratch", mountPath: "/scratch" }],
            },
          ],
          volumes: [{ name: "scratch", emptyDir: {} }],
        },
      }),
    });
    assert.equal(response.status, 201, await response.text());
    const pod = await waitFor(
      "pod writer Running",
      async () => {
        const current = (await (await fetch(`${url}/api/v1/namespaces/default/pods/writer`, { headers })).json()) as {
          metadata: { uid: string };
          status?: { phase?: string };
        };
        return current.status?.phase === "Running" ? current : undefined;
      },
      waitMs,
    );
    const uid = pod.metadata.uid;
    const nodeDir = join(dir, "nodes", nodeName);
    const hello = join(nodeDir, "kubelet/pods", uid, "volumes/kubernetes.io~empty-dir/scratch/hello");
    await waitFor(
      "the container's file on the machine",
      () => readFileSync(hello, "utf8") === "hello\n" || undefined,
      waitMs,
    );
    const log = join(nodeDir, "var/log/pods", `default_writer_${uid}`, "main/0.log");
    assert.match(readFileSync(log, "utf8"), /^\S+Z stdout F written$/m);
    const nodeCgroup = nodeCgroupDir(probe.cgroup2Mount, nodeName, join(nodeDir, "kubelet"));
    const cgroupDir = join(nodeCgroup, `pod${uid}`);
    const containerPids = await cgroupPidsBelow(cgroupDir);
    assert.ok(containerPids.length >= 2, `the container's processes are in the pod's cgroup: ${containerPids}`);

    // An exec liveness probe runs inside the container: busybox's own words come back, and the
    // container is killed and started again (its second log file).
    const probed = await fetch(`${url}/api/v1/namespaces/default/pods`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "probed" },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: "main",
              image: "busybox",
              command: ["sleep", "3600"],
              livenessProbe: { exec: { command: ["cat", "/no-such-file"] }, periodSeconds: 1, failureThreshold: 1 },
            },
          ],
        },
      }),
    });
    assert.equal(probed.status, 201, await probed.text());
    const unhealthy = await waitFor(
      "an Unhealthy event for pod probed",
      async () => {
        const events = (await (await fetch(`${url}/api/v1/namespaces/default/events`, { headers })).json()) as {
          items: { reason?: string; message?: string; involvedObject?: { name?: string } }[];
        };
        return events.items.find((event) => event.involvedObject?.name === "probed" && event.reason === "Unhealthy");
      },
      waitMs,
    );
    assert.equal(
      unhealthy.message,
      "Liveness probe failed: cat: can't open '/no-such-file': No such file or directory\n",
    );
    await waitFor(
      "pod probed restarted",
      async () => {
        const pod = (await (await fetch(`${url}/api/v1/namespaces/default/pods/probed`, { headers })).json()) as {
          status?: { containerStatuses?: { restartCount?: number }[] };
        };
        return (pod.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1 || undefined;
      },
      waitMs,
    );

    assert.equal(await node.stop("SIGTERM"), 0, node.stderr);
    for (const pid of containerPids) {
      assert.equal(await isProcessAlive(pid), false, `container process ${pid} is gone after the node stopped`);
    }
    assert.equal(existsSync(nodeCgroup), false, "no cgroup left");
    assert.deepEqual(readdirSync(join(nodeDir, "containers")), [], "no container layer left");
    assert.deepEqual(await mountsUnder(dir), [], "no mount left");
  });
});

describe("kvol up --host linux", () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-up-linux-"));
  let up: KvolProcess | undefined;
  after(async () => {
    await up?.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts the control plane and a real node; a pod's hostPath file reaches the machine; Ctrl-C leaves nothing", async (t) => {
    const probe = await probeLinuxRuntime();
    if (!requireOrSkip(t, "problems" in probe ? probe.problems.join("; ") : undefined) || "problems" in probe) return;
    up = new KvolProcess(["up", "--host", "linux", "--nodes", "1", "--port", "0", "--data-dir", dir]);
    const { url, fetch } = await startedCluster(up, startTimeoutMs);
    await up.waitForOutput(/Ready: 1 real node\(s\) on this machine/, startTimeoutMs);
    const headers = {
      Authorization: `Bearer ${new DataDir(dir).ensureAdminToken()}`,
      "Content-Type": "application/json",
    };
    const shared = join(dir, "shared");
    const response = await fetch(`${url}/api/v1/namespaces/default/pods`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "host-writer" },
        spec: {
          containers: [
            {
              name: "main",
              image: "busybox",
              command: ["sh", "-c", "trap 'exit 0' TERM; hostname > /shared/from-pod; sleep 3600 & wait"],
              volumeMounts: [{ name: "shared", mountPath: "/shared" }],
            },
          ],
          volumes: [{ name: "shared", hostPath: { path: shared, type: "DirectoryOrCreate" } }],
        },
      }),
    });
    assert.equal(response.status, 201, await response.text());
    await waitFor(
      "pod host-writer Running",
      async () => {
        const pod = (await (await fetch(`${url}/api/v1/namespaces/default/pods/host-writer`, { headers })).json()) as {
          status?: { phase?: string };
        };
        return pod.status?.phase === "Running" || undefined;
      },
      waitMs,
    );
    await waitFor("the pod's file on the machine", () => existsSync(join(shared, "from-pod")) || undefined, waitMs);
    assert.equal(readFileSync(join(shared, "from-pod"), "utf8"), "host-writer\n");
    const nodeCgroup = nodeCgroupDir(probe.cgroup2Mount, "node-1", join(dir, "nodes/node-1/kubelet"));
    assert.ok(existsSync(nodeCgroup), `the node's cgroup ${nodeCgroup} exists while it runs`);

    assert.equal(await up.stop("SIGTERM"), 0, up.stderr);
    assert.equal(existsSync(nodeCgroup), false, "no cgroup left");
    assert.deepEqual(readdirSync(join(dir, "nodes/node-1/containers")), [], "no container layer left");
    assert.deepEqual(await mountsUnder(dir), [], "no mount left");
  });
});

describe("kvol node --host linux without root", () => {
  it("refuses, saying that root is needed and how to get it", (t) => {
    const setpriv = "/usr/bin/setpriv";
    const reason =
      process.getuid?.() !== 0
        ? "running a command as another user needs root"
        : existsSync(setpriv)
          ? undefined
          : `${setpriv} is missing`;
    if (!requireOrSkip(t, reason)) return;
    const kvolBin = fileURLToPath(new URL("../../bin/kvol.js", import.meta.url));
    const nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"];
    const args = ["node", "--host", "linux", "--server", "https://127.0.0.1:1", "--name", "n1", "--token", "t"];
    const run = spawnSync(setpriv, [...nobody, process.execPath, kvolBin, ...args], { encoding: "utf8" });
    assert.equal(run.status, 1, run.stderr);
    assert.match(
      run.stderr,
      /this machine cannot run a real node:\n {2}- real nodes need root \(uid 0\): run kvol with sudo or as root/,
    );
  });
});

async function cgroupPidsBelow(dir: string): Promise<number[]> {
  const pids = await cgroupPids(dir);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) pids.push(...(await cgroupPidsBelow(join(dir, entry.name))));
  }
  return pids;
}
