/**
 * Real nodes: start, stop and crash. Env from configMaps and secrets reaches a real container; the
 * node agent killed with SIGKILL leaves its containers running and the restarted agent adopts them
 * (same process, restart count 0), and deleting the pod then stops them; Ctrl-C of `kvol up --host
 * linux --nodes 2` with running pods and volumes leaves no process, mount, mount namespace, loop
 * device or cgroup behind. Needs root and the Linux runtime's tools (skipped with the reason
 * elsewhere, except under CI=true).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { nodeCgroupDir } from "../cmd/linux-node-agent.ts";
import { namespaceInitPid } from "../cri/linux/container-cgroup.ts";
import { probeLinuxRuntime } from "../cri/linux/runtime-requirements.ts";
import { requireOrSkip } from "../host/linux/private-mount-namespace.ts";
import { isProcessAlive } from "../host/linux/process-state.ts";
import { mountsUnder } from "../host/linux/scratch-dir.ts";
import { fetchTrusting } from "../testing/fetch-trusting.ts";
import { DataDir } from "./embedded/data-dir.ts";
import { KvolProcess, type StartedCluster, startedCluster } from "./testing/kvol-process.ts";
import { startRealNode } from "./testing/real-node.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 60_000;
const waitMs = 60_000;
const kvolBin = fileURLToPath(new URL("../../bin/kvol.js", import.meta.url));

interface ApiPod {
  metadata: { uid: string; name: string };
  status?: {
    phase?: string;
    containerStatuses?: { restartCount?: number; containerID?: string; state?: Record<string, unknown> }[];
  };
}

class Api {
  constructor(
    readonly url: string,
    private readonly token: string,
    private readonly fetch: StartedCluster["fetch"],
  ) {}

  async request(method: string, path: string, body?: unknown): Promise<Response> {
    return this.fetch(`${this.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  async create(path: string, body: unknown): Promise<void> {
    const response = await this.request("POST", path, body);
    assert.equal(response.status, 201, await response.text());
  }

  async pod(name: string): Promise<ApiPod | undefined> {
    const response = await this.request("GET", `/api/v1/namespaces/default/pods/${name}`);
    return response.status === 404 ? undefined : ((await response.json()) as ApiPod);
  }

  runningPod(name: string): Promise<ApiPod> {
    return waitFor(
      `pod ${name} Running`,
      async () => {
        const pod = await this.pod(name);
        return pod?.status?.phase === "Running" ? pod : undefined;
      },
      waitMs,
    );
  }
}

function sleeper(name: string, nodeName: string | undefined, extra: Record<string, unknown> = {}): unknown {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: {
      ...(nodeName === undefined ? {} : { nodeName }),
      terminationGracePeriodSeconds: 5,
      containers: [
        {
          name: "main",
          image: "busybox",
          command: ["sh", "-c", "trap 'exit 0' TERM; while true; do echo tick; sleep 1; done"],
          ...extra,
        },
      ],
    },
  };
}

/** The container's PID 1 on the machine, from its cgroup. */
async function containerInitPid(nodeCgroup: string, pod: ApiPod): Promise<number> {
  const id = (pod.status?.containerStatuses?.[0]?.containerID ?? "").replace(/^containerd:\/\//, "");
  const pid = await waitFor(
    `PID 1 of pod ${pod.metadata.name}`,
    () => namespaceInitPid(join(nodeCgroup, `pod${pod.metadata.uid}`, id)),
    waitMs,
  );
  return pid;
}

function childrenOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((candidate) => {
      try {
        const stat = readFileSync(`/proc/${candidate}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    });
}

/** Processes whose command line mentions `text` (the data directory). */
function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    if (Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
      if (cmdline.includes(text)) found.push(`${entry}: ${cmdline}`);
    } catch {
      // The process ended while the list was read.
    }
  }
  return found;
}

/** Processes in the mount namespace `namespace` (`mnt:[inode]`). */
function processesInNamespace(namespace: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/ns/mnt`) === namespace;
      } catch {
        return false;
      }
    });
}

/**
 * After a failed test: kills what the cluster left (its processes by pid, its containers through
 * their cgroups) and removes those cgroups, so no later run meets them.
 */
async function killLeftovers(dir: string, cgroupDirs: readonly string[]): Promise<void> {
  for (const line of processesMentioning(dir)) {
    try {
      process.kill(Number(line.split(":")[0]), "SIGKILL");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }
  for (const cgroup of cgroupDirs) {
    if (!existsSync(cgroup)) continue;
    const below = spawnSync("find", [cgroup, "-depth", "-type", "d"], { encoding: "utf8" }).stdout.split("\n");
    for (const dirPath of below.filter(Boolean)) {
      if (existsSync(join(dirPath, "cgroup.kill"))) spawnSync("sh", ["-c", `echo 1 > '${dirPath}/cgroup.kill'`]);
    }
    await waitFor(
      "leftover cgroups emptied",
      () => below.filter(Boolean).every((d) => spawnSync("rmdir", [d]).status === 0 || !existsSync(d)) || undefined,
      waitMs,
    ).catch(() => undefined);
  }
}

function logOf(dir: string, node: string, pod: ApiPod, attempt = 0): string {
  return readFileSync(
    join(dir, "nodes", node, "var/log/pods", `default_${pod.metadata.name}_${pod.metadata.uid}`, `main/${attempt}.log`),
    "utf8",
  );
}

describe("a real node's containers: env, and adoption after the agent is killed", () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-node-lifecycle-"));
  const processes: KvolProcess[] = [];
  const cgroups: string[] = [];
  after(async () => {
    for (const kvol of processes.reverse()) await kvol.stop("SIGTERM");
    await killLeftovers(dir, cgroups);
    if ((await mountsUnder(dir)).length === 0) rmSync(dir, { recursive: true, force: true });
  });

  it("env from a configMap, a secret and pod fields; kill -9 of the agent, restart: the same container runs on", async (t) => {
    const probe = await probeLinuxRuntime();
    if (!requireOrSkip(t, "problems" in probe ? probe.problems.join("; ") : undefined) || "problems" in probe) return;
    const nodeName = `lifecycle-${process.pid}`;
    const server = new KvolProcess(["server", "--port", "0", "--data-dir", dir, "--node-tokens", nodeName]);
    processes.push(server);
    const cluster = await startedCluster(server, startTimeoutMs);
    const { url, fetch } = cluster;
    const data = new DataDir(dir);
    const api = new Api(url, data.ensureAdminToken(), fetch);
    const startNode = () => startRealNode({ cluster, dataDir: dir, nodeName, timeoutMs: startTimeoutMs, processes });
    const node = await startNode();

    await api.create("/api/v1/namespaces/default/configmaps", {
      metadata: { name: "settings" },
      data: { greeting: "hello", level: "debug" },
    });
    await api.create("/api/v1/namespaces/default/secrets", {
      metadata: { name: "db" },
      data: { password: Buffer.from("s3cr3t").toString("base64") },
    });
    await api.create(
      "/api/v1/namespaces/default/pods",
      sleeper("env-printer", undefined, {
        command: [
          "sh",
          "-c",
          "env | sort; echo $(GREETING) from $(POD_NAME); trap 'exit 0' TERM; while true; do echo tick; sleep 1; done",
        ],
        envFrom: [{ configMapRef: { name: "settings" }, prefix: "CFG_" }],
        env: [
          { name: "GREETING", valueFrom: { configMapKeyRef: { name: "settings", key: "greeting" } } },
          { name: "PASSWORD", valueFrom: { secretKeyRef: { name: "db", key: "password" } } },
          { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
        ],
      }),
    );
    const pod = await api.runningPod("env-printer");
    const log = await waitFor(
      "the env in the log",
      () => {
        const text = logOf(dir, nodeName, pod);
        return /stdout F tick$/m.test(text) ? text : undefined;
      },
      waitMs,
    );
    for (const line of [
      "GREETING=hello",
      "PASSWORD=s3cr3t",
      "POD_NAME=env-printer",
      "POD_NAMESPACE=default",
      "CFG_greeting=hello",
      "CFG_level=debug",
      "hello from env-printer",
    ]) {
      assert.match(log, new RegExp(` stdout F ${line}$`, "m"), `the container saw ${line}`);
    }

    // kill -9 of the agent (the process inside the node's mount namespace, the command's child).
    const nodeCgroup = nodeCgroupDir(probe.cgroup2Mount, nodeName, join(dir, "nodes", nodeName, "kubelet"));
    cgroups.push(nodeCgroup);
    const init = await containerInitPid(nodeCgroup, pod);
    const [agent] = childrenOf(node.pid);
    assert.ok(agent !== undefined, "the node agent runs as the command's child");
    const nodeNamespace = readlinkSync(`/proc/${agent}/ns/mnt`);
    process.kill(agent, "SIGKILL");
    await waitFor("the agent gone", async () => !(await isProcessAlive(agent)) || undefined, waitMs);
    // The command around it only passes on signals and its agent's exit status; it goes too.
    await node.stop("SIGKILL");
    assert.equal(await isProcessAlive(init), true, "the container runs on without its agent");
    const lengthAtKill = logOf(dir, nodeName, pod).length;
    await waitFor(
      "the container logging while no agent runs",
      () => logOf(dir, nodeName, pod).length > lengthAtKill,
      waitMs,
    );

    const restarted = await startNode();
    const [newAgent] = childrenOf(restarted.pid);
    assert.equal(
      readlinkSync(`/proc/${newAgent}/ns/mnt`),
      nodeNamespace,
      "the restarted agent joined the node's mount namespace its containers' monitors kept",
    );
    // A pod created after the restart runs once the kubelet synced its pods, the adopted one included.
    await api.create("/api/v1/namespaces/default/pods", sleeper("after-restart", undefined));
    await api.runningPod("after-restart");
    const adopted = await api.runningPod("env-printer");
    assert.equal(adopted.status?.containerStatuses?.[0]?.restartCount, 0);
    assert.equal(adopted.status?.containerStatuses?.[0]?.containerID, pod.status?.containerStatuses?.[0]?.containerID);
    assert.equal(await containerInitPid(nodeCgroup, adopted), init, "the same process, adopted");
    assert.equal(await isProcessAlive(init), true);
    assert.doesNotMatch(
      logOf(dir, nodeName, pod),
      /stdout F hello from env-printer[\s\S]*stdout F hello from env-printer/,
    );

    const deleted = await api.request("DELETE", "/api/v1/namespaces/default/pods/env-printer");
    assert.equal(deleted.status, 200, await deleted.text());
    await waitFor("pod env-printer gone", async () => (await api.pod("env-printer")) === undefined, waitMs);
    assert.equal(await isProcessAlive(init), false, "deleting the pod stopped the adopted container");
    await waitFor(
      "the pod's cgroup removed",
      () => !existsSync(join(nodeCgroup, `pod${pod.metadata.uid}`)) || undefined,
      waitMs,
    );

    assert.equal(await restarted.stop("SIGTERM"), 0, restarted.stderr);
    assert.equal(existsSync(nodeCgroup), false, "no cgroup left");
    assert.deepEqual(readdirSync(join(dir, "nodes", nodeName, "containers")), [], "no container left");
    assert.deepEqual(await mountsUnder(dir), [], "no mount left");
  });
});

describe("Ctrl-C of kvol up --host linux --nodes 2", () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-up-ctrl-c-"));
  let up: ChildProcess | undefined;
  const cgroups: string[] = [];
  after(async () => {
    if (up?.pid !== undefined && up.exitCode === null) process.kill(-up.pid, "SIGKILL");
    await killLeftovers(dir, cgroups);
    if ((await mountsUnder(dir)).length === 0) rmSync(dir, { recursive: true, force: true });
  });

  it("with running pods and volumes leaves no process, mount, namespace, loop device or cgroup", async (t) => {
    const probe = await probeLinuxRuntime();
    if (!requireOrSkip(t, "problems" in probe ? probe.problems.join("; ") : undefined) || "problems" in probe) return;
    const nodeCgroups = ["node-1", "node-2"].map((node) =>
      nodeCgroupDir(probe.cgroup2Mount, node, join(dir, "nodes", node, "kubelet")),
    );
    cgroups.push(...nodeCgroups);
    // As from a terminal: kvol up leads its own process group, and Ctrl-C signals the whole group.
    const kvol = spawn(
      process.execPath,
      [kvolBin, "up", "--host", "linux", "--nodes", "2", "--port", "0", "--data-dir", dir],
      {
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      },
    );
    up = kvol;
    let stdout = "";
    let stderr = "";
    kvol.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    kvol.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => kvol.once("exit", (code) => resolve(code)));
    const ready = await waitFor(
      "kvol up ready",
      () => {
        if (kvol.exitCode !== null) throw new Error(`kvol up exited: ${stderr}`);
        return (/Ready: 2 real node\(s\)/.test(stdout) ? /API server: (\S+)/.exec(stdout) : null) ?? undefined;
      },
      2 * startTimeoutMs,
    );
    const data = new DataDir(dir);
    const api = new Api(ready[1] ?? "", data.ensureAdminToken(), fetchTrusting(readFileSync(data.caFile, "utf8")));
    await api.create("/api/v1/namespaces/default/configmaps", { metadata: { name: "settings" }, data: { a: "1" } });
    const volumes = [
      { name: "scratch", emptyDir: {} },
      { name: "memory", emptyDir: { medium: "Memory" } },
      { name: "settings", configMap: { name: "settings" } },
    ];
    const volumeMounts = [
      { name: "scratch", mountPath: "/scratch" },
      { name: "memory", mountPath: "/memory" },
      { name: "settings", mountPath: "/etc/settings" },
    ];
    const pods: ApiPod[] = [];
    for (const node of ["node-1", "node-2"]) {
      const pod = sleeper(`on-${node}`, node, { volumeMounts }) as { spec: Record<string, unknown> };
      pod.spec.volumes = volumes;
      await api.create("/api/v1/namespaces/default/pods", pod);
      pods.push(await api.runningPod(`on-${node}`));
    }

    const agents = ["node-1", "node-2"].map((node) => {
      const found = processesMentioning(dir).filter((line) => line.includes(`--name ${node} `));
      const inner = found
        .map((line) => Number(line.split(":")[0]))
        .find((pid) => {
          try {
            return readlinkSync(`/proc/${pid}/ns/mnt`) !== readlinkSync("/proc/self/ns/mnt");
          } catch {
            return false;
          }
        });
      assert.ok(inner !== undefined, `node ${node}'s agent runs in a mount namespace of its own: ${found.join("\n")}`);
      return { node, pid: inner, namespace: readlinkSync(`/proc/${inner}/ns/mnt`) };
    });
    const tmpfsMounts = readFileSync(`/proc/${agents[0]?.pid}/mountinfo`, "utf8")
      .split("\n")
      .filter((line) => line.includes(dir) && line.includes(" - tmpfs "));
    assert.ok(tmpfsMounts.length > 0, "the Memory emptyDir is a real tmpfs in the node's namespace");

    const inits = await Promise.all(pods.map((pod, index) => containerInitPid(nodeCgroups[index] ?? "", pod)));

    process.kill(-(kvol.pid as number), "SIGINT");
    assert.equal(await exited, 0, stderr);

    for (const pid of inits) assert.equal(await isProcessAlive(pid), false, `container process ${pid} is gone`);
    assert.deepEqual(processesMentioning(dir), [], "no process of the cluster is left");
    for (const agent of agents) {
      assert.deepEqual(processesInNamespace(agent.namespace), [], `node ${agent.node}'s mount namespace is gone`);
    }
    assert.deepEqual(await mountsUnder(dir), [], "no mount under the data directory");
    const loops = spawnSync("losetup", ["-a"], { encoding: "utf8" });
    assert.equal(loops.status, 0, loops.stderr);
    assert.deepEqual(
      loops.stdout.split("\n").filter((line) => line.includes(dir)),
      [],
      "no loop device over the data directory",
    );
    for (const cgroup of nodeCgroups) assert.equal(existsSync(cgroup), false, `no cgroup ${cgroup}`);
    for (const node of ["node-1", "node-2"]) {
      assert.deepEqual(readdirSync(join(dir, "nodes", node, "containers")), [], `no container of ${node} left`);
      assert.ok(statSync(join(dir, "nodes", node, "kubelet")).isDirectory());
    }
  });
});
