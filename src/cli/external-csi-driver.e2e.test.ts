/**
 * A CSI driver outside kvol on a real node, end to end: `kvol server --csi-controller` and a
 * `kvol node --host linux`, and hostpath.csi.kvol.io started by hand as a separate process the way
 * any third-party driver would be — inside the node's mount namespace, its node socket registered
 * through the kubelet's plugins_registry/ (the registrar part of `kvol csi-driver
 * --registration-dir`), its controller socket handed to the control plane. A claim is provisioned
 * and attached through it, a busybox pod writes to the volume, the mount is real in the node's
 * namespace and the file lands in the driver's backing directory; deleting the pod unmounts,
 * deleting the claim deletes the volume, and stopping leaves no process and no mount.
 * Needs root and the real-node tools (skipped with the reason elsewhere, except under CI=true).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { probeLinuxRuntime } from "../cri/linux/runtime-requirements.ts";
import { isProcessAlive } from "../host/linux/process-state.ts";
import { mountsUnder } from "../host/linux/scratch-dir.ts";
import { requireOrSkip } from "../testing/requirements.ts";
import { DataDir } from "./embedded/data-dir.ts";
import { KvolProcess, type StartedCluster, startedCluster } from "./testing/kvol-process.ts";
import { waitFor } from "./testing/wait-for.ts";

/** The machine is shared and loaded: these waits are patience, not performance claims. */
const startTimeoutMs = 60_000;
const waitMs = 180_000;
const driverName = "hostpath.csi.kvol.io";
/** Unique on the machine: the node's cgroup is named after it. */
const nodeName = `csi-${process.pid}`;

interface ApiObject {
  metadata: { name: string; uid: string };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

class Api {
  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly fetch: StartedCluster["fetch"],
  ) {}

  async request(method: string, path: string, body?: object): Promise<{ status: number; json: ApiObject }> {
    const response = await this.fetch(`${this.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as ApiObject };
  }

  async create(path: string, body: object): Promise<void> {
    const { status, json } = await this.request("POST", path, body);
    assert.equal(status, 201, JSON.stringify(json));
  }

  async get(path: string): Promise<ApiObject | undefined> {
    const { status, json } = await this.request("GET", path);
    return status === 200 ? json : undefined;
  }
}

/** `findmnt` inside the node's mount namespace: the source of whatever is mounted at `target`. */
function findmntInNode(nsenter: string, agentPid: number, target: string): string {
  const run = spawnSync(nsenter, ["-t", String(agentPid), "-m", "--", "findmnt", "-n", "-o", "SOURCE", target], {
    encoding: "utf8",
  });
  return run.stdout.trim();
}

describe("an external CSI driver on a real node", () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-csi-e2e-"));
  const processes: KvolProcess[] = [];
  after(async () => {
    for (const kvol of processes.reverse()) await kvol.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("registers through plugins_registry, provisions through --csi-controller, and serves a pod's volume", async (t) => {
    const probe = await probeLinuxRuntime();
    if (!requireOrSkip(t, "problems" in probe ? probe.problems.join("; ") : undefined) || "problems" in probe) return;
    const rootDir = join(dir, "nodes", nodeName, "kubelet");
    const csiSocket = join(rootDir, "plugins", driverName, "csi.sock");
    const backingDir = join(dir, "hostpath-volumes");

    const server = new KvolProcess([
      "server",
      "--port",
      "0",
      "--data-dir",
      dir,
      "--node-tokens",
      nodeName,
      "--csi-controller",
      `${driverName}=unix://${csiSocket}`,
    ]);
    processes.push(server);
    const { url, caFile, fetch } = await startedCluster(server, startTimeoutMs);
    const data = new DataDir(dir);
    const api = new Api(url, data.ensureAdminToken(), fetch);
    const node = new KvolProcess([
      "node",
      "--host",
      "linux",
      "--server",
      url,
      "--certificate-authority",
      caFile,
      "--name",
      nodeName,
      "--token-file",
      data.nodeTokenFile(nodeName),
      "--data-dir",
      dir,
      // kvol's own hostpath.csi.kvol.io node plugin would register first: this test brings its own.
      "--csi-node-plugins",
      "none",
    ]);
    processes.push(node);
    await node.waitForOutput(new RegExp(`node ${nodeName} is running on this machine`), startTimeoutMs);
    const agentPid = Number(readFileSync(join(dir, "nodes", nodeName, "agent.pid"), "utf8"));

    // The driver, as its DaemonSet pod would run: in the node's mount namespace, so its mounts are the node's.
    const driver = new KvolProcess(
      [
        "csi-driver",
        driverName,
        "--endpoint",
        `unix://${csiSocket}`,
        "--node-id",
        nodeName,
        "--state-dir",
        backingDir,
        "--registration-dir",
        join(rootDir, "plugins_registry"),
      ],
      [probe.tools.nsenter, "-t", String(agentPid), "-m", "--"],
    );
    processes.push(driver);
    await driver.waitForOutput(
      /Received NotifyRegistrationStatus call: &RegistrationStatus\{PluginRegistered:true/,
      waitMs,
    );
    const csiNode = await waitFor(
      `CSINode ${nodeName} listing ${driverName}`,
      async () => {
        const object = await api.get(`/apis/storage.k8s.io/v1/csinodes/${nodeName}`);
        const drivers = (object?.spec?.drivers ?? []) as { name: string; nodeID: string; topologyKeys?: string[] }[];
        return drivers.find((entry) => entry.name === driverName);
      },
      waitMs,
    );
    assert.deepEqual(csiNode, {
      name: driverName,
      nodeID: nodeName,
      topologyKeys: ["topology.hostpath.csi.kvol.io/node"],
    });

    await api.create("/apis/storage.k8s.io/v1/storageclasses", {
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { name: "external-hostpath" },
      provisioner: driverName,
      reclaimPolicy: "Delete",
      volumeBindingMode: "WaitForFirstConsumer",
    });
    await api.create("/api/v1/namespaces/default/persistentvolumeclaims", {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "data" },
      spec: {
        storageClassName: "external-hostpath",
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "16Mi" } },
      },
    });
    await api.create("/api/v1/namespaces/default/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "writer" },
      spec: {
        terminationGracePeriodSeconds: 5,
        containers: [
          {
            name: "main",
            image: "busybox",
            command: ["sh", "-c", "trap 'exit 0' TERM; echo from-pod > /data/hello; sleep 3600 & wait"],
            volumeMounts: [{ name: "data", mountPath: "/data" }],
          },
        ],
        volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
      },
    });
    const pod = await waitFor(
      "pod writer Running",
      async () => {
        const current = await api.get("/api/v1/namespaces/default/pods/writer");
        return current?.status?.phase === "Running" ? current : undefined;
      },
      waitMs,
    );
    const claim = await api.get("/api/v1/namespaces/default/persistentvolumeclaims/data");
    const pvName = String(claim?.spec?.volumeName ?? "");
    const pv = await api.get(`/api/v1/persistentvolumes/${pvName}`);
    const volumeHandle = String((pv?.spec?.csi as { volumeHandle?: string } | undefined)?.volumeHandle ?? "");
    assert.ok(volumeHandle !== "", `PV ${pvName} has a CSI volume handle`);

    const target = join(rootDir, "pods", pod.metadata.uid, "volumes/kubernetes.io~csi", pvName, "mount");
    assert.match(
      findmntInNode(probe.tools.nsenter, agentPid, target),
      new RegExp(`/${volumeHandle}\\]$`),
      "the pod's volume is a real bind mount of the driver's backing directory, in the node's namespace",
    );
    assert.equal(mountedHere(target), false, "the machine's own namespace does not see it");
    const backingFile = join(backingDir, volumeHandle, "hello");
    await waitFor(
      "the pod's file in the driver's backing directory",
      () => existsSync(backingFile) || undefined,
      waitMs,
    );
    assert.equal(readFileSync(backingFile, "utf8"), "from-pod\n");

    const deleted = await api.request("DELETE", "/api/v1/namespaces/default/pods/writer");
    assert.equal(deleted.status, 200);
    await waitFor(
      "pod writer gone",
      async () => (await api.get("/api/v1/namespaces/default/pods/writer")) === undefined || undefined,
      waitMs,
    );
    await waitFor(
      "the pod's volume unmounted in the node's namespace",
      () => findmntInNode(probe.tools.nsenter, agentPid, target) === "" || undefined,
      waitMs,
    );
    await api.request("DELETE", "/api/v1/namespaces/default/persistentvolumeclaims/data");
    await waitFor(
      `PV ${pvName} deleted, and its backing directory with it (DeleteVolume)`,
      async () =>
        ((await api.get(`/api/v1/persistentvolumes/${pvName}`)) === undefined &&
          !existsSync(join(backingDir, volumeHandle))) ||
        undefined,
      waitMs,
    );

    const driverPid = driver.pid;
    assert.equal(await driver.stop("SIGTERM"), 0, driver.stderr);
    assert.equal(
      existsSync(join(rootDir, "plugins_registry", `${driverName}-reg.sock`)),
      false,
      "registration socket removed",
    );
    await waitFor(
      `CSINode ${nodeName} without ${driverName} once the driver stopped`,
      async () => {
        const object = await api.get(`/apis/storage.k8s.io/v1/csinodes/${nodeName}`);
        const drivers = (object?.spec?.drivers ?? []) as { name: string }[];
        return !drivers.some((entry) => entry.name === driverName) || undefined;
      },
      waitMs,
    );
    assert.equal(await node.stop("SIGTERM"), 0, node.stderr);
    assert.equal(await server.stop("SIGTERM"), 0, server.stderr);
    for (const pid of [driverPid, agentPid]) {
      if (pid !== undefined) assert.equal(await isProcessAlive(pid), false, `process ${pid} is gone`);
    }
    assert.deepEqual(await mountsUnder(dir), [], "no mount left");
  });
});

describe("the bundled CSI node plugins of a real node", () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-csi-plugins-e2e-"));
  const processes: KvolProcess[] = [];
  after(async () => {
    for (const kvol of processes.reverse()) await kvol.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("run as processes of their own that outlive a kill -9 of the agent; the restarted agent adopts them", async (t) => {
    const probe = await probeLinuxRuntime();
    if (!requireOrSkip(t, "problems" in probe ? probe.problems.join("; ") : undefined) || "problems" in probe) return;
    const name = `plugins-${process.pid}`;
    const server = new KvolProcess(["server", "--port", "0", "--data-dir", dir, "--node-tokens", name]);
    processes.push(server);
    const { url, caFile, fetch } = await startedCluster(server, startTimeoutMs);
    const data = new DataDir(dir);
    const api = new Api(url, data.ensureAdminToken(), fetch);
    const nodeArgs = [
      "node",
      "--host",
      "linux",
      "--server",
      url,
      "--certificate-authority",
      caFile,
      "--name",
      name,
      "--token-file",
      data.nodeTokenFile(name),
      "--data-dir",
      dir,
      "--csi-node-plugins",
      driverName,
    ];
    const startNode = async (): Promise<{ node: KvolProcess; agentPid: number }> => {
      const node = new KvolProcess(nodeArgs);
      processes.push(node);
      await node.waitForOutput(new RegExp(`node ${name} is running on this machine`), startTimeoutMs);
      return { node, agentPid: Number(readFileSync(join(dir, "nodes", name, "agent.pid"), "utf8")) };
    };
    const registered = () =>
      waitFor(
        `CSINode ${name} listing ${driverName}`,
        async () => {
          const object = await api.get(`/apis/storage.k8s.io/v1/csinodes/${name}`);
          return (
            ((object?.spec?.drivers ?? []) as { name: string }[]).some((entry) => entry.name === driverName) ||
            undefined
          );
        },
        waitMs,
      );
    const first = await startNode();
    await registered();
    const pluginPid = Number(readFileSync(join(dir, "nodes", name, "csi-plugins", `${driverName}.pid`), "utf8"));
    assert.equal(processGroupOf(pluginPid), pluginPid, "the plugin leads a process group of its own");
    assert.equal(
      mountNamespaceOf(pluginPid),
      mountNamespaceOf(first.agentPid),
      "the plugin is in the node's mount namespace",
    );

    process.kill(first.agentPid, "SIGKILL");
    await first.node.stop("SIGTERM");
    assert.equal(await isProcessAlive(pluginPid), true, "the plugin outlives the agent");

    const second = await startNode();
    await registered();
    assert.equal(
      await isProcessAlive(pluginPid),
      true,
      "the restarted agent adopted the plugin rather than replacing it",
    );
    assert.equal(
      mountNamespaceOf(second.agentPid),
      mountNamespaceOf(pluginPid),
      "the restarted agent joined the node's namespace",
    );
    const socket = join(dir, "nodes", name, "kubelet/plugins", driverName, "csi.sock");
    assert.deepEqual(pluginProcessesServing(socket), [pluginPid], "one plugin per driver and node, never two");

    assert.equal(await second.node.stop("SIGTERM"), 0, second.node.stderr);
    assert.equal(await isProcessAlive(pluginPid), false, "stopping the node stops its plugins");
    assert.equal(await isProcessAlive(second.agentPid), false);
    assert.equal(await server.stop("SIGTERM"), 0, server.stderr);
    assert.deepEqual(await mountsUnder(dir), [], "no mount left");
  });
});

function processGroupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // `pid (comm) state ppid pgrp …`: comm may hold spaces, so count from the last ')'.
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

function mountNamespaceOf(pid: number): string {
  return readlinkSync(`/proc/${pid}/ns/mnt`);
}

/** The processes whose command line names `socket`: the node plugins serving it. */
function pluginProcessesServing(socket: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(`unix://${socket}`);
      } catch (error) {
        // A process that ended between the listing and the read.
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
        throw error;
      }
    })
    .map(Number);
}

/** Whether this (the machine's) namespace has a mount at `path`. */
function mountedHere(path: string): boolean {
  return spawnSync("findmnt", ["-n", path], { encoding: "utf8" }).stdout.trim() !== "";
}
