import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { parse } from "yaml";
import { testPod } from "../api/client/testing/test-api.ts";
import { type CliTestServer, startCliTestServer } from "./client/testing/cli-test-support.ts";
import { runGetCommand } from "./get-command.ts";

describe("kvol get", () => {
  let t: CliTestServer;
  beforeEach(async () => {
    t = await startCliTestServer();
    const { server } = t;
    await server.call("POST", "/api/v1/namespaces/default/pods", testPod("default", "web-0", "node-1"));
    await server.call("POST", "/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "ops-test" },
    });
    await server.call("POST", "/api/v1/namespaces/ops-test/pods", testPod("ops-test", "db"));
    await server.call("POST", "/api/v1/persistentvolumes", {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "pv-1" },
      spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/pv-1" } },
    });
    await server.clock.advanceBy(65_000);
  });
  afterEach(() => t.close());

  it("prints pods of the current namespace as kubectl's table", async () => {
    const io = t.io();
    assert.equal(await runGetCommand(["pods"], io), 0);
    assert.equal(io.stdout, "NAME    READY   STATUS    RESTARTS   AGE\nweb-0   0/1     Pending   0          65s\n");
  });

  it("adds the wide columns and a NAMESPACE column with -A", async () => {
    const io = t.io();
    assert.equal(await runGetCommand(["po", "-A", "-o", "wide"], io), 0);
    const lines = io.stdout.trimEnd().split("\n");
    assert.match(
      lines[0] ?? "",
      /^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/,
    );
    assert.match(lines[1] ?? "", /^default\s+web-0\s+0\/1\s+Pending.*node-1/);
    assert.match(lines[2] ?? "", /^ops-test\s+db\s/);
  });

  it("prints several kinds with kind/name names", async () => {
    const io = t.io();
    assert.equal(await runGetCommand(["pv,pvc"], io), 0);
    assert.match(io.stdout, /^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS/);
    assert.match(io.stdout, /persistentvolume\/pv-1\s+1Gi\s+RWO\s+Retain/);
  });

  it("prints one object as YAML and several as a List in JSON", async () => {
    const yamlIo = t.io();
    assert.equal(await runGetCommand(["pod", "web-0", "-o", "yaml"], yamlIo), 0);
    const pod = parse(yamlIo.stdout) as { kind: string; apiVersion: string; metadata: { name: string } };
    assert.deepEqual([pod.kind, pod.apiVersion, pod.metadata.name], ["Pod", "v1", "web-0"]);
    const jsonIo = t.io();
    assert.equal(await runGetCommand(["pods", "-n", "ops-test", "-o", "json"], jsonIo), 0);
    const list = JSON.parse(jsonIo.stdout) as { kind: string; items: { kind: string; metadata: { name: string } }[] };
    assert.equal(list.kind, "List");
    assert.deepEqual(
      list.items.map((i) => `${i.kind}/${i.metadata.name}`),
      ["Pod/db"],
    );
  });

  it("says so when nothing is found, and fails for a missing named object", async () => {
    const empty = t.io();
    assert.equal(await runGetCommand(["pvc"], empty), 0);
    assert.equal(empty.stderr, "No resources found in default namespace.\n");
    const missing = t.io();
    assert.equal(await runGetCommand(["pod/nope"], missing), 1);
    assert.equal(missing.stderr, 'Error from server (NotFound): pods "nope" not found\n');
  });

  it("refuses an unknown kind with a usage error", async () => {
    const io = t.io();
    assert.equal(await runGetCommand(["widgets"], io), 2);
    assert.match(io.stderr, /doesn't have a resource type "widgets"/);
  });

  it("keeps printing changes with -w until interrupted", async () => {
    const io = t.io();
    const running = runGetCommand(["pods", "-w"], io);
    for (let i = 0; i < 200 && !io.stdout.includes("web-0"); i++) await t.server.wallClock.sleep(5);
    await t.server.call("DELETE", "/api/v1/namespaces/default/pods/web-0");
    for (let i = 0; i < 200 && !io.stdout.includes("Terminating"); i++) await t.server.wallClock.sleep(5);
    io.interrupt();
    assert.equal(await running, 0);
    const lines = io.stdout.trimEnd().split("\n");
    assert.equal(lines.length, 3, io.stdout);
    assert.match(lines[2] ?? "", /^web-0\s+0\/1\s+Terminating\s+0\s+65s$/);
  });
});
