/**
 * The cluster as separate processes: `kvol server` and two `kvol node` agents joining it over HTTPS
 * with their own tokens (one given --server and --certificate-authority, the other the server's
 * kubeconfig with its own token), until a pod with a claim runs on one of them.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { DataDir } from "./embedded/data-dir.ts";
import { parseNodeArguments } from "./node-command.ts";
import { parseServerArguments } from "./server-command.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 25_000;
const waitMs = 20_000;
const nodeNames = ["node-a", "node-b"];

describe("kvol server and kvol node arguments", () => {
  it("reads a node's server, name and token, from a file too, and says what is missing", () => {
    const dir = mkdtempSync(join(tmpdir(), "kvol-node-args-"));
    try {
      const tokenFile = join(dir, "token");
      writeFileSync(tokenFile, "abc\n");
      assert.deepEqual(
        parseNodeArguments(["--server", "http://127.0.0.1:1", "--name", "n1", "--token-file", tokenFile]),
        {
          serverUrl: "http://127.0.0.1:1",
          nodeName: "n1",
          token: "abc",
          logLevel: "warn",
          host: "sim",
          dataDir: undefined,
          rootDir: undefined,
          kubeletPort: 0,
          nodeIp: undefined,
        },
      );
      const endpoint = parseNodeArguments([
        ...["--server", "http://h", "--name", "n1", "--token", "t"],
        ...["--kubelet-port", "10250", "--node-ip", "10.0.0.7"],
      ]);
      assert.deepEqual("host" in endpoint && [endpoint.kubeletPort, endpoint.nodeIp], [10250, "10.0.0.7"]);
      assert.throws(
        () => parseNodeArguments(["--server", "http://h", "--name", "n1", "--token", "t", "--kubelet-port", "70000"]),
        /--kubelet-port must be a port number from 0 to 65535, got "70000"/,
      );
      assert.throws(
        () => parseNodeArguments(["--server", "http://h", "--name", "n1", "--token", "t", "--node-ip", "node-a"]),
        /--node-ip must be an IPv4 or IPv6 address, got "node-a"/,
      );
      const linux = parseNodeArguments(["--server", "http://h", "--name", "n1", "--token", "t", "--host", "linux"]);
      assert.deepEqual("host" in linux && [linux.host, linux.rootDir], ["linux", undefined]);
      assert.throws(
        () => parseNodeArguments(["--server", "http://h", "--name", "n1", "--token", "t", "--host", "vm"]),
        /--host must be sim or linux, got "vm"/,
      );
      assert.throws(
        () => parseNodeArguments(["--name", "n1", "--token", "t"]),
        /--server \(or --kubeconfig\) is required/,
      );
      assert.throws(
        () => parseNodeArguments(["--server", "127.0.0.1", "--name", "n", "--token", "t"]),
        /--server must be an https:\/\/ \(or http:\/\/\) URL, got "127.0.0.1"/,
      );
      assert.throws(
        () => parseNodeArguments(["--server", "http://h", "--name", "n1"]),
        /--token or --token-file is required/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads --csi-node-plugins: bundled driver names or none, and names a wrong one", () => {
    const base = ["--server", "http://h", "--name", "n1", "--token", "t", "--host", "linux"];
    const plugins = (value: string) => {
      const parsed = parseNodeArguments([...base, "--csi-node-plugins", value]);
      return "csiNodePlugins" in parsed ? parsed.csiNodePlugins : "default";
    };
    assert.deepEqual(plugins("hostpath.csi.kvol.io,fuse.csi.kvol.io"), ["hostpath.csi.kvol.io", "fuse.csi.kvol.io"]);
    assert.deepEqual(plugins("none"), []);
    const defaults = parseNodeArguments(base);
    assert.equal("csiNodePlugins" in defaults, false, "without the flag the node runs the default set");
    assert.throws(
      () => plugins("ebs.csi.aws.com"),
      /^Error: --csi-node-plugins: "ebs\.csi\.aws\.com" is not a bundled CSI driver with a node plugin; choose from hostpath\.csi\.kvol\.io, disk\.csi\.kvol\.io, fuse\.csi\.kvol\.io, or none$/,
    );
    assert.throws(() => plugins(","), /--csi-node-plugins is empty; give driver names, or none/);
  });

  it("reads --max-volumes-per-node and --fenceable-disks for a real node, and refuses them for a simulated one", () => {
    const base = ["--server", "http://h", "--name", "n1", "--token", "t"];
    const parsed = parseNodeArguments([...base, "--host", "linux", "--max-volumes-per-node", "2", "--fenceable-disks"]);
    assert.equal("maxVolumesPerNode" in parsed && parsed.maxVolumesPerNode, 2);
    assert.equal("fenceableDisks" in parsed && parsed.fenceableDisks, true);
    assert.throws(
      () => parseNodeArguments([...base, "--host", "linux", "--max-volumes-per-node", "2.5"]),
      /--max-volumes-per-node must be a whole number from 0 to 2147483647, got "2.5"/,
    );
    assert.throws(
      () => parseNodeArguments([...base, "--max-volumes-per-node", "2"]),
      /--max-volumes-per-node needs --host linux: a simulated node runs no CSI node plugins of its own/,
    );
    assert.throws(() => parseNodeArguments([...base, "--fenceable-disks"]), /--fenceable-disks needs --host linux/);
  });

  it("runs the server without nodes and checks the names it makes tokens for", () => {
    const parsed = parseServerArguments(["--node-tokens", "node-a, node-b", "--data-dir", "/tmp/d"]);
    assert.ok(!("help" in parsed));
    assert.equal(parsed.nodeCount, 0);
    assert.deepEqual(parsed.nodeTokenNames, ["node-a", "node-b"]);
    assert.throws(() => parseServerArguments(["--node-tokens", "Node_A"]), /"Node_A" is not a valid node name/);
  });
});

describe("kvol server with two kvol node processes", () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-server-"));
  const processes: KvolProcess[] = [];
  after(async () => {
    for (const kvol of processes) await kvol.stop("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs a pod with a claim on a node agent that joined over HTTPS", async () => {
    const server = new KvolProcess(["server", "--port", "0", "--data-dir", dir, "--node-tokens", nodeNames.join(",")]);
    processes.push(server);
    const { url, caFile, kubeconfigPath, fetch } = await startedCluster(server, startTimeoutMs);
    const data = new DataDir(dir);
    const [first = "", second = ""] = nodeNames;
    const joins = [
      ["--server", url, "--certificate-authority", caFile, "--name", first, "--token-file", data.nodeTokenFile(first)],
      ["--kubeconfig", kubeconfigPath, "--name", second, "--token-file", data.nodeTokenFile(second)],
    ];
    for (const join of joins) processes.push(new KvolProcess(["node", ...join]));
    const headers = { Authorization: `Bearer ${data.ensureAdminToken()}`, "Content-Type": "application/json" };
    const get = async (path: string): Promise<Record<string, unknown>> =>
      (await (await fetch(`${url}${path}`, { headers })).json()) as Record<string, unknown>;
    const create = async (path: string, body: unknown): Promise<void> => {
      const response = await fetch(`${url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
      assert.equal(response.status, 201, await response.text());
    };
    await waitFor(
      "both nodes registered",
      async () => ((await get("/api/v1/nodes")).items as unknown[]).length === nodeNames.length || undefined,
      startTimeoutMs,
    );
    await create("/api/v1/persistentvolumes", {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "host-pv" },
      spec: {
        capacity: { storage: "1Gi" },
        accessModes: ["ReadWriteOnce"],
        storageClassName: "manual",
        hostPath: { path: "/srv/data", type: "DirectoryOrCreate" },
      },
    });
    await create("/api/v1/namespaces/default/persistentvolumeclaims", {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "data" },
      spec: { accessModes: ["ReadWriteOnce"], storageClassName: "manual", resources: { requests: { storage: "1Gi" } } },
    });
    await create("/api/v1/namespaces/default/pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web" },
      spec: {
        containers: [{ name: "main", image: "busybox", volumeMounts: [{ name: "d", mountPath: "/data" }] }],
        volumes: [{ name: "d", persistentVolumeClaim: { claimName: "data" } }],
      },
    });
    const pod = await waitFor(
      "pod web Running",
      async () => {
        const current = (await get("/api/v1/namespaces/default/pods/web")) as {
          spec?: { nodeName?: string };
          status?: { phase?: string };
        };
        return current.status?.phase === "Running" ? current : undefined;
      },
      waitMs,
    );
    assert.ok(nodeNames.includes(pod.spec?.nodeName ?? ""), `scheduled to ${pod.spec?.nodeName}`);
    // The node's kubelet server answers the Summary API through the API server's node proxy; a
    // hostPath volume has no stats (Kubernetes' hostPath plugin has no metrics).
    const summary = (await get(`/api/v1/nodes/${pod.spec?.nodeName}/proxy/stats/summary`)) as {
      node?: { nodeName?: string };
      pods?: Array<{ podRef: { name: string; namespace: string }; volume?: unknown[] }>;
    };
    assert.equal(summary.node?.nodeName, pod.spec?.nodeName);
    const web = summary.pods?.find((entry) => entry.podRef.name === "web");
    assert.equal(web?.podRef.namespace, "default");
    assert.equal(web?.volume, undefined);
    for (const kvol of processes.slice(1)) assert.equal(await kvol.stop("SIGTERM"), 0, kvol.stderr);
    assert.equal(await server.stop("SIGTERM"), 0, server.stderr);
  });
});
