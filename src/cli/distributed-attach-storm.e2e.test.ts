/**
 * kvol distributed on real nodes, the leader killed in an attach storm: a 3-member etcd cluster on
 * loopback ports, two `kvol server --etcd-servers … --leader-elect` replicas, the disk.csi.kvol.io
 * controller as a `kvol csi-driver` process of its own (as a driver's controller Deployment runs
 * beside the control plane; both servers' sidecars reach it with `--csi-controller`), and two
 * `kvol node --host linux` agents given both servers — so each attach is a real loop device.
 *
 * A few pods run on node-1; then a storm of pods, each with its own ReadWriteOnce claim, is created
 * on both nodes while those few are deleted and recreated on node-2 (their disks must move). While
 * the VolumeAttachments are being created and attached, the leading server is killed with kill -9.
 * The other takes the Lease over, every pod reaches Running, no volume is ever attached to two
 * nodes (VolumeAttachments, Node status and the disks' own records, polled through the whole run),
 * and once the pods and claims are deleted no VolumeAttachment, disk or loop device is left.
 *
 * Runs under CI=true (or KVOL_E2E=1); needs root, the etcd binary and the Linux runtime's tools.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startTestEtcdCluster, type TestEtcdCluster } from "../api/store/testing/etcd-test-cluster.ts";
import { etcdBinary } from "../api/store/testing/etcd-test-server.ts";
import { csiPluginsCgroupSuffix, nodeCgroupDir } from "../cmd/linux-node-agent.ts";
import { releaseDiskLoopDevices } from "../cmd/release-disk-loop-devices.ts";
import { probeLinuxRuntime } from "../cri/linux/runtime-requirements.ts";
import { LinuxHost } from "../host/linux/linux-host.ts";
import { mountsUnder } from "../host/linux/scratch-dir.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { suiteSkip } from "../testing/requirements.ts";
import { caFileName, caKeyFileName } from "./embedded/constants.ts";
import { DataDir } from "./embedded/data-dir.ts";
import { type AttachmentJson, DoubleAttachMonitor, readDiskRecords } from "./testing/double-attach-monitor.ts";
import { KvolProcess, type StartedCluster, startedCluster } from "./testing/kvol-process.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 120_000;
/** The machine is shared and loaded: patience, not a performance claim. */
const waitMs = 300_000;
/**
 * How long the survivor may take to hold the Lease: the 15 s lease duration, a 2 s retry with its
 * jitter, and a wide margin for a loaded machine.
 */
const takeoverTimeoutMs = 60_000;
/** How long a process gets to stop on SIGTERM in the clean-up. */
const stopGracePeriodMs = 60_000;
const nodeNames = ["node-1", "node-2"] as const;
const driverName = "disk.csi.kvol.io";
const storageClassName = "storm";
/** Pods on node-1 before the storm whose disks move to node-2 during it. */
const moverCount = 3;
/** Pods of the storm, alternately on node-1 and node-2, each with its own claim. */
const stormCount = 20;
/** The storm's VolumeAttachments that must exist when the leader is killed. */
const attachmentsAtKill = 4;

const suiteTitle = "kvol distributed on real nodes: the leading server killed in an attach storm";

function skipReason(): string | false {
  if (process.env.CI !== "true" && process.env.KVOL_E2E !== "1") {
    const reason = "set KVOL_E2E=1 or CI=true to run the distributed end-to-end tests";
    console.log(`skipping "${suiteTitle}": ${reason}`);
    return reason;
  }
  if (process.getuid?.() !== 0) return suiteSkip(suiteTitle, "real nodes need root");
  const missing =
    etcdBinary() === undefined ? "etcd is not installed (Debian: apt-get install etcd-server)" : undefined;
  return suiteSkip(suiteTitle, missing);
}
const skip = skipReason();

interface Lease {
  spec?: { holderIdentity?: string; leaseTransitions?: number };
}

interface PodJson {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  spec: { nodeName?: string; volumes?: { persistentVolumeClaim?: { claimName: string } }[] };
  status?: { phase?: string };
}

interface ClaimJson {
  metadata: { name: string };
  spec: { volumeName?: string };
}

interface PersistentVolumeJson {
  metadata: { name: string };
  spec: { csi?: { volumeHandle: string } };
}

/** The API through a list of servers: each request goes to the first that answers. */
class FailoverApi {
  urls: string[];

  constructor(
    urls: readonly string[],
    private readonly token: string,
    private readonly fetch: StartedCluster["fetch"],
  ) {
    this.urls = [...urls];
  }

  async request(method: string, path: string, body?: unknown): Promise<Response> {
    let lastError: unknown;
    for (const url of this.urls) {
      try {
        return await this.fetch(`${url}${path}`, {
          method,
          headers: { Authorization: `Bearer ${this.token}`, "Content-Type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }

  async get<T>(path: string): Promise<T> {
    const response = await this.request("GET", path);
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }

  async create(path: string, body: unknown): Promise<void> {
    const response = await this.request("POST", path, body);
    assert.equal(response.status, 201, `POST ${path}: ${await response.text()}`);
  }

  async delete(path: string): Promise<void> {
    const response = await this.request("DELETE", path);
    assert.ok(response.status === 200 || response.status === 202, `DELETE ${path}: ${await response.text()}`);
  }

  async items<T>(path: string): Promise<T[]> {
    return (await this.get<{ items: T[] }>(path)).items;
  }
}

function claim(name: string): unknown {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name },
    spec: {
      accessModes: ["ReadWriteOnce"],
      storageClassName,
      resources: { requests: { storage: "64Mi" } },
    },
  };
}

function podOn(name: string, nodeName: string, claimName: string): unknown {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { app: "storm" } },
    spec: {
      terminationGracePeriodSeconds: 1,
      nodeSelector: { "kubernetes.io/hostname": nodeName },
      containers: [
        {
          name: "main",
          image: "busybox",
          command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"],
          volumeMounts: [{ name: "data", mountPath: "/data" }],
        },
      ],
      volumes: [{ name: "data", persistentVolumeClaim: { claimName } }],
    },
  };
}

/** SIGTERM (a node then unmounts and stops its containers), SIGKILL if it has not exited in time. */
async function stopWithin(kvol: KvolProcess, graceMs: number): Promise<void> {
  const timer = new RealClock().setTimer(graceMs, () => void kvol.stop("SIGKILL"));
  await kvol.stop("SIGTERM");
  timer.cancel();
}

/** Loop devices whose backing file is under `dir` (`losetup -l`). */
function loopDevicesUnder(dir: string): string[] {
  const run = spawnSync("losetup", ["-l", "-n", "-O", "NAME,BACK-FILE"], { encoding: "utf8" });
  return run.stdout
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.includes(`${dir}/`));
}

/** Processes whose command line mentions `text` (the test's directory), as `pid: cmdline`. */
function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    if (Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
      if (cmdline.includes(text)) found.push(`${entry}: ${cmdline}`);
    } catch (error) {
      // The process ended while the list was read.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return found;
}

/** After a failed run: kills what is left by pid and empties and removes the nodes' cgroups. */
async function killLeftovers(dir: string, cgroups: readonly string[]): Promise<void> {
  for (const line of processesMentioning(dir)) {
    try {
      process.kill(Number(line.split(":")[0]), "SIGKILL");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }
  for (const cgroup of cgroups.filter((path) => existsSync(path))) {
    const below = spawnSync("find", [cgroup, "-depth", "-type", "d"], { encoding: "utf8" }).stdout.split("\n");
    for (const path of below.filter(Boolean)) {
      if (existsSync(join(path, "cgroup.kill"))) spawnSync("sh", ["-c", `echo 1 > '${path}/cgroup.kill'`]);
    }
    await waitFor(
      "leftover cgroups removed",
      () => below.filter(Boolean).every((path) => spawnSync("rmdir", [path]).status === 0 || !existsSync(path)),
      30_000,
    ).catch((error: unknown) => console.log(String(error)));
  }
}

describe(suiteTitle, { skip }, () => {
  // Made by the test, so a skipped suite leaves nothing behind.
  let dir = "";
  let disksDir = "";
  const processes: KvolProcess[] = [];
  const cgroups: string[] = [];
  let etcd: TestEtcdCluster | undefined;
  let monitor: DoubleAttachMonitor | undefined;
  after(async () => {
    await monitor?.stop();
    for (const kvol of [...processes].reverse()) await stopWithin(kvol, stopGracePeriodMs);
    await etcd?.stop();
    if (dir === "") return;
    await killLeftovers(dir, cgroups);
    await releaseDiskLoopDevices(new LinuxHost({ nodeName: "storm-test" }), disksDir);
    if ((await mountsUnder(dir)).length === 0) rmSync(dir, { recursive: true, force: true });
  });

  it("the other server takes over; every pod runs; no double attach; nothing leaked", {
    timeout: 600_000,
  }, async () => {
    const probe = await probeLinuxRuntime();
    if ("problems" in probe) assert.fail(probe.problems.join("; "));
    dir = mkdtempSync(join(tmpdir(), "kvol-storm-"));
    disksDir = join(dir, "disks");
    for (const name of nodeNames) {
      const base = nodeCgroupDir(probe.cgroup2Mount, name, join(dir, "nodes", name, "kubelet"));
      cgroups.push(base, `${base}${csiPluginsCgroupSuffix}`);
    }
    const clock = new RealClock();
    etcd = await startTestEtcdCluster(3);
    const etcdServers = etcd.endpoints.join(",");

    // The driver's controller, outside both servers, as its Deployment would run.
    const controllerSocket = join(dir, "csi-controller", "disk.sock");
    mkdirSync(join(dir, "csi-controller"), { recursive: true });
    const controller = new KvolProcess([
      "csi-driver",
      driverName,
      "--endpoint",
      `unix://${controllerSocket}`,
      "--node-id",
      "csi-controller",
      "--state-dir",
      disksDir,
    ]);
    processes.push(controller);
    await waitFor("the disk driver's controller socket", () => existsSync(controllerSocket), startTimeoutMs);

    const dirA = join(dir, "server-a");
    const dirB = join(dir, "server-b");
    const serverArgs = (dataDir: string) => [
      "server",
      "--port",
      "0",
      "--data-dir",
      dataDir,
      "--etcd-servers",
      etcdServers,
      "--leader-elect",
      "--csi-controller",
      `${driverName}=unix://${controllerSocket}`,
    ];
    const serverA = new KvolProcess([...serverArgs(dirA), "--node-tokens", nodeNames.join(",")]);
    processes.push(serverA);
    const a = await startedCluster(serverA, startTimeoutMs);
    const dataA = new DataDir(dirA);
    // Both servers accept the same tokens and serve certificates of one CA (docs/distributed.md copies the files).
    mkdirSync(dirB, { recursive: true, mode: 0o700 });
    for (const file of ["tokens.csv", caFileName, caKeyFileName]) {
      copyFileSync(join(dirA, file), join(dirB, file));
      chmodSync(join(dirB, file), 0o600);
    }
    const serverB = new KvolProcess(serverArgs(dirB));
    processes.push(serverB);
    const b = await startedCluster(serverB, startTimeoutMs);
    const identityOf = async (kvol: KvolProcess) =>
      (await kvol.waitForOutput(/leader election: candidate (\S+) for the Lease/, startTimeoutMs))[1] ?? "";
    const servers = new Map([
      [await identityOf(serverA), { kvol: serverA, url: a.url }],
      [await identityOf(serverB), { kvol: serverB, url: b.url }],
    ]);
    const api = new FailoverApi([a.url, b.url], dataA.ensureAdminToken(), a.fetch);
    const lease = () =>
      api.get<Lease>("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager");
    const leaderIdentity = await waitFor(
      "a leader elected",
      async () => {
        const holder = (await lease()).spec?.holderIdentity;
        return holder !== undefined && servers.has(holder) ? holder : undefined;
      },
      startTimeoutMs,
    );
    const leader = servers.get(leaderIdentity);
    const [followerIdentity, follower] = [...servers].find(([identity]) => identity !== leaderIdentity) ?? [];
    assert.ok(leader !== undefined && follower !== undefined && followerIdentity !== undefined);
    const transitionsBefore = (await lease()).spec?.leaseTransitions ?? 0;

    const csiDriverResponse = await api.request("POST", "/apis/storage.k8s.io/v1/csidrivers", {
      apiVersion: "storage.k8s.io/v1",
      kind: "CSIDriver",
      metadata: { name: driverName },
      spec: { attachRequired: true },
    });
    assert.ok([201, 409].includes(csiDriverResponse.status), await csiDriverResponse.text());
    await api.create("/apis/storage.k8s.io/v1/storageclasses", {
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { name: storageClassName },
      provisioner: driverName,
      reclaimPolicy: "Delete",
      volumeBindingMode: "WaitForFirstConsumer",
    });

    for (const name of nodeNames) {
      const node = new KvolProcess([
        "node",
        "--host",
        "linux",
        "--server",
        `${leader.url},${follower.url}`,
        "--certificate-authority",
        a.caFile,
        "--name",
        name,
        "--token-file",
        dataA.nodeTokenFile(name),
        "--data-dir",
        dir,
        "--csi-node-plugins",
        driverName,
      ]);
      processes.push(node);
    }
    for (const node of processes.slice(-nodeNames.length)) {
      await node.waitForOutput(/is running on this machine/, startTimeoutMs);
    }
    await waitFor(
      `${driverName} registered on both nodes`,
      async () => {
        const csiNodes = await api.items<{ spec?: { drivers?: { name: string }[] } }>(
          "/apis/storage.k8s.io/v1/csinodes",
        );
        const withDriver = csiNodes.filter((node) => node.spec?.drivers?.some((d) => d.name === driverName));
        return withDriver.length === nodeNames.length || undefined;
      },
      startTimeoutMs,
    );

    monitor = new DoubleAttachMonitor({ get: (path) => api.get(path), disksDir });
    monitor.start();
    const pods = () => api.items<PodJson>("/api/v1/namespaces/default/pods");
    const running = (list: readonly PodJson[], name: string) =>
      list.some((pod) => pod.metadata.name === name && pod.status?.phase === "Running");

    // The movers run on node-1 first, their disks attached there.
    const moverNames = Array.from({ length: moverCount }, (_, i) => `mover-${i}`);
    for (const name of moverNames) {
      await api.create("/api/v1/namespaces/default/persistentvolumeclaims", claim(name));
      await api.create("/api/v1/namespaces/default/pods", podOn(name, "node-1", name));
    }
    await waitFor(
      "the movers Running on node-1",
      async () => {
        const list = await pods();
        return moverNames.every((name) => running(list, name)) || undefined;
      },
      waitMs,
    );

    // The storm: claims and pods on both nodes, and the movers leaving node-1 for node-2.
    const stormNames = Array.from({ length: stormCount }, (_, i) => `storm-${i}`);
    const stormNode = (i: number) => nodeNames[i % nodeNames.length] ?? "node-1";
    await Promise.all(
      stormNames.map(async (name, i) => {
        await api.create("/api/v1/namespaces/default/persistentvolumeclaims", claim(name));
        await api.create("/api/v1/namespaces/default/pods", podOn(name, stormNode(i), name));
      }),
    );
    const movedNames = moverNames.map((name) => `${name}-moved`);
    for (const [i, name] of moverNames.entries()) {
      await api.delete(`/api/v1/namespaces/default/pods/${name}`);
      await api.create("/api/v1/namespaces/default/pods", podOn(movedNames[i] ?? "", "node-2", name));
    }

    // kill -9 of the leader while the storm's VolumeAttachments are being created and attached.
    const claimsOf = async (names: readonly string[]): Promise<Map<string, string>> => {
      const claims = await api.items<ClaimJson>("/api/v1/namespaces/default/persistentvolumeclaims");
      return new Map(
        claims
          .filter((item) => names.includes(item.metadata.name) && item.spec.volumeName !== undefined)
          .map((item) => [item.spec.volumeName ?? "", item.metadata.name]),
      );
    };
    const attachments = () => api.items<AttachmentJson>("/apis/storage.k8s.io/v1/volumeattachments");
    const stormAttachments = async () => {
      const volumes = await claimsOf(stormNames);
      return (await attachments()).filter((item) => volumes.has(item.spec.source.persistentVolumeName ?? ""));
    };
    // The moment: the storm's VolumeAttachments are being created and attached, and a mover's old
    // pod is gone from node-1, so detaching its disk is the leader's next job.
    const moverVolumes = await claimsOf(moverNames);
    const atKill = await waitFor(
      `${attachmentsAtKill} VolumeAttachments of the storm and a mover's old pod gone`,
      async () => {
        const found = await stormAttachments();
        const names = new Set((await pods()).map((pod) => pod.metadata.name));
        const moverGone = moverNames.some((name) => !names.has(name));
        return found.length >= attachmentsAtKill && moverGone ? found : undefined;
      },
      waitMs,
    );
    assert.equal(await leader.kvol.stop("SIGKILL"), null, "killed by the signal");
    const killedAtMs = clock.now();
    api.urls = [follower.url];
    const moversOnNode1 = (await attachments()).filter(
      (item) => moverVolumes.has(item.spec.source.persistentVolumeName ?? "") && item.spec.nodeName === "node-1",
    );
    console.log(
      `leader killed with ${atKill.length} of ${stormCount} storm VolumeAttachments created, ` +
        `${atKill.filter((item) => item.status?.attached === true).length} attached; ` +
        `${moversOnNode1.length} of ${moverCount} movers' disks still attached to node-1 ` +
        `(${moversOnNode1.filter((item) => item.metadata.deletionTimestamp !== undefined).length} being detached)`,
    );

    await waitFor(
      "the surviving server holds the Lease",
      async () => ((await lease()).spec?.holderIdentity === followerIdentity ? true : undefined),
      takeoverTimeoutMs,
    );
    console.log(`the survivor holds the Lease ${clock.now() - killedAtMs} ms after the kill`);
    assert.equal((await lease()).spec?.leaseTransitions, transitionsBefore + 1);

    const wanted = [...stormNames, ...movedNames];
    await waitFor(
      "every pod Running",
      async () => {
        const list = await pods();
        return wanted.every((name) => running(list, name)) || undefined;
      },
      waitMs,
    );
    await waitFor(
      "the movers' old pods gone",
      async () => {
        const names = new Set((await pods()).map((pod) => pod.metadata.name));
        return moverNames.every((name) => !names.has(name)) || undefined;
      },
      waitMs,
    );
    // Each pod's disk is attached to its node, and to no other.
    const volumes = await claimsOf([...stormNames, ...moverNames]);
    const byClaim = new Map([...volumes].map(([volume, claimName]) => [claimName, volume]));
    const list = await pods();
    const now = await attachments();
    for (const pod of list.filter((item) => wanted.includes(item.metadata.name))) {
      const claimName = pod.spec.volumes?.[0]?.persistentVolumeClaim?.claimName ?? "";
      const volume = byClaim.get(claimName);
      const ofVolume = now.filter((item) => item.spec.source.persistentVolumeName === volume);
      assert.deepEqual(
        ofVolume.map((item) => [item.spec.nodeName, item.status?.attached]),
        [[pod.spec.nodeName, true]],
        `the disk of ${pod.metadata.name} is attached to its node ${pod.spec.nodeName} only`,
      );
    }
    // And the driver's own record agrees: each disk in use is attached to its pod's node only.
    const pvs = await api.items<PersistentVolumeJson>("/api/v1/persistentvolumes");
    const diskNodes = new Map(
      (await readDiskRecords(disksDir)).map((record) => [record.id, record.attachments.map((a) => a.nodeName)]),
    );
    for (const pod of list.filter((item) => wanted.includes(item.metadata.name))) {
      const volume = byClaim.get(pod.spec.volumes?.[0]?.persistentVolumeClaim?.claimName ?? "");
      const diskId = pvs.find((pv) => pv.metadata.name === volume)?.spec.csi?.volumeHandle ?? "";
      assert.deepEqual(diskNodes.get(diskId), [pod.spec.nodeName], `disk ${diskId} of ${pod.metadata.name}`);
    }
    for (const name of movedNames) {
      assert.equal(list.find((pod) => pod.metadata.name === name)?.spec.nodeName, "node-2", `${name} on node-2`);
    }

    // Everything deleted: no VolumeAttachment, disk or loop device left.
    for (const name of wanted) await api.delete(`/api/v1/namespaces/default/pods/${name}`);
    await waitFor("every pod gone", async () => (await pods()).length === 0 || undefined, waitMs);
    await waitFor(
      "no VolumeAttachment left",
      async () => {
        const left = await attachments();
        return left.length === 0 || undefined;
      },
      waitMs,
    );
    for (const name of [...stormNames, ...moverNames]) {
      await api.delete(`/api/v1/namespaces/default/persistentvolumeclaims/${name}`);
    }
    await waitFor(
      "every PersistentVolume deleted",
      async () => (await api.items<PersistentVolumeJson>("/api/v1/persistentvolumes")).length === 0 || undefined,
      waitMs,
    );
    assert.deepEqual(await readDiskRecords(disksDir), [], "no disk left in the driver");
    assert.deepEqual(loopDevicesUnder(disksDir), [], "no loop device left over a disk");

    await monitor.stop();
    console.log(
      `double-attach monitor: ${monitor.polls} polls, at most ${monitor.mostAttached} volumes attached at once` +
        (monitor.recentErrors.length > 0 ? `; last failed polls: ${monitor.recentErrors.join(" | ")}` : ""),
    );
    assert.ok(monitor.polls > 0, "the monitor saw the cluster");
    assert.deepEqual(monitor.sightings, [], "no volume attached to two nodes at any poll");

    const nodes = processes.filter((kvol) => kvol.running && kvol !== controller && kvol !== follower.kvol);
    for (const node of nodes) assert.equal(await node.stop("SIGTERM"), 0, node.stderr);
    assert.equal(await follower.kvol.stop("SIGTERM"), 0, follower.kvol.stderr);
    assert.equal(await controller.stop("SIGTERM"), 0, controller.stderr);
    assert.deepEqual(await mountsUnder(dir), [], "no mount left");
    for (const cgroup of cgroups) assert.equal(existsSync(cgroup), false, `no cgroup ${cgroup}`);
  });
});
