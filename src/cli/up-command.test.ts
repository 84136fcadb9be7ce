/**
 * `kvol up` end to end: a separate process on a free port, driven by the official JavaScript
 * client (@kubernetes/client-node) through the kubeconfig it writes — create, list, watch, patch
 * and delete a claim, and a pod using it that becomes Running — then a clean stop on SIGTERM.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CoreV1Api, KubeConfig, PatchStrategy, StorageV1Api, setHeaderOptions, Watch } from "@kubernetes/client-node";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { waitFor } from "./testing/wait-for.ts";
import { parseUpArguments, runUpCommand } from "./up-command.ts";

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
      nodeHost: "sim",
    });
    const linux = parseUpArguments(["--host", "linux", "--nodes", "2"]);
    assert.deepEqual("nodeHost" in linux && [linux.nodeHost, linux.nodeCount], ["linux", 2]);
    assert.throws(() => parseUpArguments(["--host", "vm"]), /--host must be sim or linux, got "vm"/);
    assert.deepEqual(parseUpArguments(["--ephemeral"]), {
      nodeCount: 3,
      port: 8080,
      host: "127.0.0.1",
      dataDir: undefined,
      ephemeral: true,
      logLevel: "info",
      verbose: false,
      nodeHost: "sim",
    });
    assert.throws(
      () => parseUpArguments(["--nodes", "many"]),
      /--nodes must be a whole number from 0 to 100, got "many"/,
    );
    assert.throws(() => parseUpArguments(["--port", "70000"]), /--port must be a whole number/);
    assert.throws(() => parseUpArguments(["--log-level", "loud"]), /--log-level must be debug, info, warn or error/);
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
      const status = await runUpCommand(["--port", String(port), "--nodes", "0", "--ephemeral", "--data-dir", dir], io);
      assert.equal(status, 1);
      assert.match(
        err.join(""),
        new RegExp(`kvol up: port ${port} is already in use; choose another with --port \\(0 picks a free one\\)`),
      );
      assert.equal(existsSync(join(dir, "kvol.pid")), false, "the data directory is released");
    } finally {
      taken.close();
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
    const { kubeconfigPath } = await startedCluster(kvol, startTimeoutMs);
    config = new KubeConfig();
    config.loadFromFile(kubeconfigPath);
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
    await storage.createStorageClass({
      body: {
        metadata: { name: "standard" },
        provisioner: "kvol.io/sim-disk",
        volumeBindingMode: "WaitForFirstConsumer",
      },
    });
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
