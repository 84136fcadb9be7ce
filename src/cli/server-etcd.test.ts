/**
 * `kvol server --etcd-servers`: the objects live in etcd under Kubernetes' keys, and a second
 * `kvol server` on the same etcd serves what the first one wrote.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { Etcd3 } from "etcd3";
import { etcdTestOptions, startTestEtcd, type TestEtcd } from "../api/store/testing/etcd-test-server.ts";
import { parseServerArguments } from "./server-command.ts";
import { type InProcessServer, runServerInProcess } from "./testing/in-process-server.ts";

const startTimeoutMs = 25_000;

describe("kvol server --etcd-servers arguments", () => {
  it("takes comma-separated http(s) URLs and refuses anything else, naming the flag", () => {
    const parsed = parseServerArguments(["--etcd-servers", "https://10.0.0.1:2379, https://10.0.0.2:2379"]);
    assert.ok(!("help" in parsed));
    assert.deepEqual(parsed.etcdServers, ["https://10.0.0.1:2379", "https://10.0.0.2:2379"]);
    const plain = parseServerArguments(["--etcd-servers", "http://10.0.0.1:2379,http://10.0.0.2:2379"]);
    assert.ok(!("help" in plain));
    assert.deepEqual(plain.etcdServers, ["http://10.0.0.1:2379", "http://10.0.0.2:2379"]);
    assert.throws(
      () => parseServerArguments(["--etcd-servers", "http://10.0.0.1:2379,https://10.0.0.2:2379"]),
      /^Error: --etcd-servers: mixes http:\/\/ and https:\/\/ URLs; etcd is reached over one or the other$/,
    );
    assert.throws(
      () => parseServerArguments(["--etcd-servers", "10.0.0.1:2379"]),
      /^Error: --etcd-servers: "10.0.0.1:2379" is not an http:\/\/ or https:\/\/ URL$/,
    );
    assert.throws(() => parseServerArguments(["--etcd-servers", ","]), /--etcd-servers needs at least one URL/);
    assert.throws(
      () => parseServerArguments(["--etcd-servers", "http://a:2379", "--ephemeral"]),
      /--etcd-servers and --ephemeral cannot be combined/,
    );
  });
});

describe("kvol server on etcd", etcdTestOptions(), () => {
  let etcd: TestEtcd | undefined;
  const dirs: string[] = [];
  before(async () => {
    etcd = await startTestEtcd();
  });
  after(async () => {
    await etcd?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("keeps objects in etcd; a second server on it serves them", { timeout: 60_000 }, async () => {
    assert.ok(etcd);
    const servers: InProcessServer[] = [];
    const raw = new Etcd3({ hosts: etcd.endpoint });
    try {
      for (const name of ["a", "b"]) {
        const dir = mkdtempSync(join(tmpdir(), `kvol-server-etcd-${name}-`));
        dirs.push(dir);
        const server = runServerInProcess(["--port", "0", "--data-dir", dir, "--etcd-servers", etcd.endpoint]);
        servers.push(server);
        await server.ready(startTimeoutMs);
        assert.match(server.stdout(), new RegExp(`objects are kept in etcd at ${etcd.endpoint}`));
      }
      const clients = servers.map((server) => {
        const config = new KubeConfig();
        config.loadFromFile(server.kubeconfigPath());
        return config.makeApiClient(CoreV1Api);
      });
      const [first, second] = clients as [CoreV1Api, CoreV1Api];
      const created = await first.createNamespacedConfigMap({
        namespace: "default",
        body: { metadata: { name: "shared" }, data: { k: "v" } },
      });
      const key = await raw.get("/registry/configmaps/default/shared").string();
      assert.ok(key, "the ConfigMap is in etcd under its Kubernetes key");
      const read = await second.readNamespacedConfigMap({ namespace: "default", name: "shared" });
      assert.deepEqual(read.data, { k: "v" });
      assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);
    } finally {
      raw.close();
      for (const server of servers) assert.equal(await server.stop(), 0);
    }
  });
});
