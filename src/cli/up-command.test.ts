/**
 * `kvol up` end to end: a separate process on a free port, driven by the official JavaScript
 * client (@kubernetes/client-node) through the kubeconfig it writes — create, list, watch, patch
 * and delete a claim, and a pod using it that becomes Running — then a clean stop on SIGTERM.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CoreV1Api, KubeConfig, PatchStrategy, StorageV1Api, setHeaderOptions, Watch } from "@kubernetes/client-node";
import { RealClock } from "../runtime/real-clock.ts";
import { capturedIo } from "./client/testing/cli-test-support.ts";
import { parseServerArguments, runServerCommand } from "./server-command.ts";
import { runSpeedCommand } from "./speed-command.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { waitFor } from "./testing/wait-for.ts";
import { type ClusterArguments, checkSpeedForNodes, parseUpArguments, runUpCommand } from "./up-command.ts";

const startTimeoutMs = 25_000;
const waitMs = 20_000;
const namespace = "default";

describe("kvol up arguments", () => {
  it("reads the node count, port, data directory and memory store, and refuses bad values", () => {
    const parsed = parseUpArguments(["--nodes", "5", "--port", "0", "--data-dir", "/tmp/x"]);
    assert.deepEqual(parsed, {
      nodeCount: 5,
      port: 0,
      host: "127.0.0.1",
      dataDir: "/tmp/x",
      ephemeral: false,
      logLevel: "info",
      verbose: false,
      speed: 1,
      nodeHost: "sim",
    });
    const linux = parseUpArguments(["--host", "linux", "--nodes", "2"]);
    assert.deepEqual("nodeHost" in linux && [linux.nodeHost, linux.nodeCount], ["linux", 2]);
    assert.throws(() => parseUpArguments(["--host", "vm"]), /--host must be sim or linux, got "vm"/);
    const sized = parseUpArguments(["--csi-capacity-limit", "10Gi"]);
    assert.equal("csiCapacityLimitBytes" in sized && sized.csiCapacityLimitBytes, 10 * 1024 ** 3);
    assert.throws(
      () => parseUpArguments(["--csi-capacity-limit", "ten"]),
      /--csi-capacity-limit must be a quantity of bytes such as 512Mi or 10Gi, got "ten"/,
    );
    assert.throws(
      () => parseUpArguments(["--host", "linux", "--csi-capacity-limit", "1Gi"]),
      /with --host linux run kvol csi-driver --capacity-limit instead/,
    );
    assert.deepEqual(parseUpArguments(["--ephemeral"]), {
      nodeCount: 3,
      port: 8080,
      host: "127.0.0.1",
      dataDir: undefined,
      ephemeral: true,
      logLevel: "info",
      verbose: false,
      speed: 1,
      nodeHost: "sim",
    });
    assert.throws(
      () => parseUpArguments(["--nodes", "many"]),
      /--nodes must be a whole number from 0 to 100, got "many"/,
    );
    assert.throws(() => parseUpArguments(["--port", "70000"]), /--port must be a whole number/);
    assert.throws(() => parseUpArguments(["--log-level", "loud"]), /--log-level must be debug, info, warn or error/);
  });

  it("reads --max-volumes-per-node for the simulated nodes' disk driver and for real nodes' plugins", () => {
    const parsed = parseUpArguments(["--max-volumes-per-node", "2"]);
    assert.equal("maxVolumesPerNode" in parsed && parsed.maxVolumesPerNode, 2);
    assert.throws(
      () => parseUpArguments(["--max-volumes-per-node=-1"]),
      /--max-volumes-per-node must be a whole number from 0 to 2147483647, got "-1"/,
    );
    const real = parseUpArguments(["--host", "linux", "--max-volumes-per-node", "2"]);
    assert.equal("maxVolumesPerNode" in real && real.maxVolumesPerNode, 2);
  });

  it("turns node fencing on with --fence-after, off without it, and refuses a grace under 10s", () => {
    const fenced = parseUpArguments(["--ephemeral", "--fence-after", "15s"]);
    assert.equal("fenceAfterMs" in fenced && fenced.fenceAfterMs, 15_000);
    assert.equal("fenceAfterMs" in parseUpArguments(["--ephemeral"]), false);
    assert.throws(
      () => parseUpArguments(["--fence-after", "3s"]),
      /--fence-after must be at least 10s \(a live kubelet renews its Lease every 10s\), got "3s"/,
    );
  });

  it("reads --tls-san names and addresses for the serving certificate, and names a bad one", () => {
    const parsed = parseUpArguments(["--ephemeral", "--tls-san", "kvol.example.com,10.0.0.5", "--tls-san", "fd00::5"]);
    assert.deepEqual("tlsSans" in parsed && parsed.tlsSans, ["kvol.example.com", "10.0.0.5", "fd00::5"]);
    assert.equal("tlsSans" in parseUpArguments(["--ephemeral"]), false);
    assert.throws(
      () => parseUpArguments(["--tls-san", "kvol.example.com:6443"]),
      /^Error: --tls-san: "kvol.example.com:6443" is not a valid IP address, DNS name or DNS name with a leading wildcard label \(\*\.example\.com\)$/,
    );
  });

  it("reads --speed, refuses a speed out of range, and refuses any speed with real nodes", () => {
    assert.equal((parseUpArguments(["--speed", "60"]) as ClusterArguments).speed, 60);
    assert.equal((parseUpArguments(["--speed", "0.5"]) as ClusterArguments).speed, 0.5);
    assert.throws(
      () => parseUpArguments(["--speed", "fast"]),
      /^Error: --speed must be a number from 0.1 to 1000 \(60: a minute of the cluster per second\), got "fast"$/,
    );
    assert.throws(() => parseUpArguments(["--speed", "0"]), /--speed must be a number from 0.1 to 1000/);
    assert.throws(
      () => checkSpeedForNodes(60, "linux"),
      /^Error: --speed 60 cannot be used with --host linux: real nodes run real processes on the wall clock, and real processes cannot be sped up; leave out --speed$/,
    );
    checkSpeedForNodes(1, "linux");
    checkSpeedForNodes(60, "sim");
  });
});

describe("kvol up on a port already taken", () => {
  it("says so and what to do, and leaves nothing running", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    const dir = mkdtempSync(join(tmpdir(), "kvol-port-"));
    const err: string[] = [];
    try {
      const io = {
        stdout: () => undefined,
        stderr: (t: string) => err.push(t),
        stopRequested: () => new Promise<string>(() => undefined),
      };
      const status = await runUpCommand(["--port", String(port), "--nodes", "0", "--data-dir", join(dir, "data")], io);
      assert.equal(status, 1);
      assert.match(
        err.join(""),
        new RegExp(`kvol up: port ${port} is already in use; choose another with --port \\(0 picks a free one\\)`),
      );
      assert.deepEqual(readdirSync(dir), [], "the data directory was not even created");
    } finally {
      taken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("kvol up with a bad data directory or address", () => {
  async function refused(args: string[]): Promise<{ status: number; err: string }> {
    const err: string[] = [];
    const io = {
      stdout: () => undefined,
      stderr: (t: string) => err.push(t),
      stopRequested: () => new Promise<string>(() => undefined),
    };
    const status = await runUpCommand(["--port", "0", "--nodes", "0", ...args], io);
    return { status, err: err.join("") };
  }

  it("names the flag and writes nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvol-preflight-"));
    try {
      const file = join(dir, "a-file");
      writeFileSync(file, "mine");
      assert.deepEqual(await refused(["--data-dir", file]), {
        status: 1,
        err: `kvol up: --data-dir ${file} is a file, not a directory; choose a directory\n`,
      });
      assert.equal(readFileSync(file, "utf8"), "mine");
      // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
      const data = join(dir, "data");
      assert.deepEqual(await refused(["--data-dir", data, "--address", "192.0.2.1"]), {
        status: 1,
        err: "kvol up: --address 192.0.2.1 is not an address of this machine; use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)\n",
      });
      assert.equal(existsSync(data), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("kvol up with @kubernetes/client-node", () => {
  let dir: string;
  let kvol: KvolProcess;
  let core: CoreV1Api;
  let storage: StorageV1Api;
  let config: KubeConfig;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "kvol-up-"));
    kvol = new KvolProcess(["up", "--port", "0", "--nodes", "1", "--data-dir", dir]);
    const { kubeconfigPath, kubeconfigUrl } = await startedCluster(kvol, startTimeoutMs);
    config = new KubeConfig();
    config.loadFromFile(kubeconfigPath);
    assert.equal(kubeconfigUrl, config.getCurrentCluster()?.server, "the banner prints the kubeconfig's address");
    core = config.makeApiClient(CoreV1Api);
    storage = config.makeApiClient(StorageV1Api);
    await kvol.waitForOutput(/Ready: 1 node\(s\)/, startTimeoutMs);
  });
  after(async () => {
    await kvol.stop("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates, lists, watches, patches and deletes a claim, and runs a pod with it", async () => {
    const seen: string[] = [];
    const watching = await new Watch(config).watch(
      `/api/v1/namespaces/${namespace}/persistentvolumeclaims`,
      {},
      (type, object: { metadata?: { name?: string } }) => seen.push(`${type} ${object.metadata?.name}`),
      () => undefined,
    );
    // `kvol up` made the default class `standard`: a claim may name it or leave the class out.
    const classes = await storage.listStorageClass();
    assert.ok(classes.items.some((item) => item.metadata?.name === "standard"));
    await core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: { name: "data" },
        spec: {
          accessModes: ["ReadWriteOnce"],
          storageClassName: "standard",
          resources: { requests: { storage: "1Gi" } },
        },
      },
    });
    const listed = await core.listNamespacedPersistentVolumeClaim({ namespace });
    assert.deepEqual(
      listed.items.map((claim) => claim.metadata?.name),
      ["data"],
    );
    const patched = await core.patchNamespacedPersistentVolumeClaim(
      { namespace, name: "data", body: { metadata: { labels: { team: "storage" } } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    assert.equal(patched.metadata?.labels?.team, "storage");

    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: "web" },
        spec: {
          containers: [{ name: "main", image: "busybox", volumeMounts: [{ name: "d", mountPath: "/data" }] }],
          volumes: [{ name: "d", persistentVolumeClaim: { claimName: "data" } }],
        },
      },
    });
    await waitFor(
      "pod web Running",
      async () => (await core.readNamespacedPod({ namespace, name: "web" })).status?.phase === "Running" || undefined,
      waitMs,
    );
    const claim = await core.readNamespacedPersistentVolumeClaim({ namespace, name: "data" });
    assert.equal(claim.status?.phase, "Bound");
    assert.ok(seen.includes("ADDED data"), seen.join(", "));
    assert.ok(
      seen.filter((entry) => entry === "MODIFIED data").length >= 2,
      `label patch and binding: ${seen.join(", ")}`,
    );

    await core.deleteNamespacedPod({ namespace, name: "web" });
    await core.deleteNamespacedPersistentVolumeClaim({ namespace, name: "data" });
    await waitFor(
      "claim data deleted",
      async () => {
        const claims = await core.listNamespacedPersistentVolumeClaim({ namespace });
        return claims.items.length === 0 || undefined;
      },
      waitMs,
    );
    assert.ok(seen.includes("DELETED data"), seen.join(", "));
    watching.abort();
  });

  it("stops cleanly on SIGTERM, releasing its data directory", async () => {
    const status = await kvol.stop("SIGTERM");
    assert.equal(status, 0, kvol.stderr);
    assert.match(kvol.stderr, /✓ stopping \(SIGTERM\)/);
    assert.equal(existsSync(join(dir, "kvol.pid")), false, "the data directory is released");
  });
});

describe("kvol server and the speed", () => {
  it("refuses to change it: its nodes are kvol node processes on the wall clock", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvol-server-speed-"));
    let stop: (signal: string) => void = () => undefined;
    let stdout = "";
    const io = {
      stdout: (t: string) => {
        stdout += t;
      },
      stderr: () => undefined,
      stopRequested: () => new Promise<string>((resolve) => (stop = resolve)),
    };
    assert.throws(
      () => parseServerArguments(["--speed", "60"]),
      /^Error: --speed is for kvol up: the nodes of kvol server are kvol node processes on the wall clock/,
    );
    const running = runServerCommand(["--port", "0", "--data-dir", dir], io);
    try {
      await waitFor("kvol server ready", () => /Ready: 0 node/.test(stdout) || undefined, startTimeoutMs);
      const kubeconfig = /^kubeconfig: (\S+)$/m.exec(stdout)?.[1] ?? "";
      const client = capturedIo({ KUBECONFIG: kubeconfig }, new RealClock());
      assert.equal(await runSpeedCommand(["10"], client), 1);
      assert.equal(
        client.stderr,
        "Error from server (BadRequest): the speed cannot change: the nodes of `kvol server` are `kvol node` processes on the wall clock, and other processes cannot be sped up\n",
      );
    } finally {
      stop("SIGTERM");
      assert.equal(await running, 0);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
