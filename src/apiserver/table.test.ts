import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { testPod } from "../api/client/testing/test-api.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

const pods = "/api/v1/namespaces/default/pods";
/** What kubectl get sends. */
const kubectlAccept =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

interface TableBody {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion?: string };
  columnDefinitions: { name: string; priority: number }[];
  rows: { cells: unknown[]; object?: { kind?: string; metadata?: { name?: string }; spec?: unknown } }[];
}

async function getTable(
  t: TestServer,
  path: string,
  accept = kubectlAccept,
): Promise<{ status: number; body: TableBody }> {
  const response = await fetch(`${t.server.url}${path}`, { headers: { Accept: accept } });
  return { status: response.status, body: (await response.json()) as TableBody };
}

describe("Table output", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
    await t.call("POST", pods, testPod("default", "web"));
    await t.clock.advanceBy(5 * 60_000 + 3_000);
  });
  afterEach(() => t.close());

  it("lists pods as kubectl's table, each row carrying the pod's metadata", async () => {
    const { status, body } = await getTable(t, pods);
    assert.equal(status, 200);
    assert.equal(body.kind, "Table");
    assert.equal(body.apiVersion, "meta.k8s.io/v1");
    assert.equal(body.metadata.resourceVersion, String(t.store.revision()));
    assert.deepEqual(
      body.columnDefinitions.map((c) => c.name),
      ["Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"],
    );
    assert.equal(body.rows.length, 1);
    assert.deepEqual(body.rows[0]?.cells.slice(0, 5), ["web", "0/1", "Pending", "0", "5m3s"]);
    assert.equal(body.rows[0]?.object?.kind, "PartialObjectMetadata");
    assert.equal(body.rows[0]?.object?.metadata?.name, "web");
    assert.equal(body.rows[0]?.object?.spec, undefined);
  });

  it("carries the whole object or none as includeObject asks, and serves v1beta1", async () => {
    const full = await getTable(t, `${pods}?includeObject=Object`);
    assert.ok(full.body.rows[0]?.object?.spec);
    const none = await getTable(t, `${pods}?includeObject=None`);
    assert.equal(none.body.rows[0]?.object, undefined);
    const beta = await getTable(t, pods, "application/json;as=Table;v=v1beta1;g=meta.k8s.io");
    assert.equal(beta.body.apiVersion, "meta.k8s.io/v1beta1");
    const bad = await getTable(t, `${pods}?includeObject=Everything`);
    assert.equal(bad.status, 400);
  });

  it("answers a GET of one object with a one-row table", async () => {
    const { body } = await getTable(t, `${pods}/web`);
    assert.equal(body.kind, "Table");
    assert.equal(body.rows.length, 1);
    assert.equal(body.rows[0]?.cells[0], "web");
  });

  it("serves the objects themselves when the client prefers plain JSON", async () => {
    const { body } = await getTable(t, pods, "application/json, application/json;as=Table;v=v1;g=meta.k8s.io");
    assert.equal(body.kind, "PodList");
  });

  it("streams watch events as one-row tables", async () => {
    const list = await getTable(t, pods);
    const abort = new AbortController();
    const response = await fetch(
      `${t.server.url}${pods}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`,
      {
        headers: { Accept: kubectlAccept },
        signal: abort.signal,
      },
    );
    await t.call("DELETE", `${pods}/web`);
    const reader = response.body?.getReader();
    assert.ok(reader);
    let text = "";
    for (let reads = 0; reads < 50 && !text.includes("\n"); reads++) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    abort.abort();
    const event = JSON.parse(text.split("\n")[0] ?? "") as { type: string; object: TableBody };
    assert.equal(event.type, "MODIFIED");
    assert.equal(event.object.kind, "Table");
    assert.equal(event.object.rows[0]?.cells[2], "Terminating");
    assert.equal(event.object.columnDefinitions[0]?.name, "Name");
  });

  it("prints storage kinds with their own columns", async () => {
    const sc = {
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { name: "standard", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
      provisioner: "kvol.io/sim-disk",
      volumeBindingMode: "WaitForFirstConsumer",
    };
    assert.equal((await t.call("POST", "/apis/storage.k8s.io/v1/storageclasses", sc)).status, 201);
    const { body } = await getTable(t, "/apis/storage.k8s.io/v1/storageclasses");
    assert.deepEqual(body.rows[0]?.cells.slice(0, 5), [
      "standard (default)",
      "kvol.io/sim-disk",
      "Delete",
      "WaitForFirstConsumer",
      false,
    ]);
  });
});
