import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../../apiserver/test-server.ts";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { Rng } from "../../runtime/rng.ts";
import { type ApiError, isApiError, isConflict, isNotFound } from "../errors.ts";
import { SharedInformer } from "../informer/shared-informer.ts";
import type { Pod } from "../objects.ts";
import type { WatchEvent } from "./client.ts";
import { clone } from "./copy.ts";
import { HttpClient } from "./http-client.ts";
import { testPod } from "./testing/test-api.ts";

describe("HttpClient", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  /** Waits (in real time, bounded) until `done` holds; the server answers over the network. */
  async function eventually(done: () => boolean): Promise<void> {
    for (let spin = 0; spin < 400 && !done(); spin++) await t.wallClock.sleep(5);
    assert.ok(done(), "the condition did not hold in time");
  }

  it("creates, gets, lists, updates and deletes, returning frozen objects", async () => {
    const { client } = t;
    const created = await client.pods.create(testPod("default", "web"));
    assert.ok(created.metadata?.uid);
    const fetched = await client.pods.get("default", "web");
    assert.equal(Object.isFrozen(fetched), true);
    assert.equal(fetched.metadata?.uid, created.metadata?.uid);
    const list = await client.pods.list({ namespace: "default", labelSelector: "app=web" });
    assert.equal(list.items.length, 1);
    assert.equal(list.resourceVersion, String(t.store.revision()));
    const copy = clone(fetched);
    copy.metadata = { ...copy.metadata, labels: { app: "changed" } };
    const updated = await client.pods.update(copy);
    assert.deepEqual(updated.metadata?.labels, { app: "changed" });
    const status = await client.pods.updateStatus({ ...clone(updated), status: { phase: "Running" } });
    assert.equal(status.status?.phase, "Running");
    await client.pods.delete("default", "web", { gracePeriodSeconds: 0 });
    await assert.rejects(client.pods.get("default", "web"), (error) => isNotFound(error));
    assert.equal(
      client.calls.describe(),
      "get pods=2, list pods=1, create pods=1, update pods=1, update pods/status=1, delete pods=1",
    );
  });

  it("returns the server's errors as ApiErrors with the same reason and code", async () => {
    const { client } = t;
    const created = await client.pods.create(testPod("default", "web"));
    await client.pods.patch("default", "web", { metadata: { labels: { moved: "on" } } });
    const stale = clone(created);
    stale.metadata = { ...stale.metadata, labels: { late: "yes" } };
    await assert.rejects(client.pods.update(stale), (error) => {
      assert.ok(isConflict(error));
      assert.equal((error as ApiError).code, 409);
      assert.match((error as ApiError).message, /the object has been modified/);
      return true;
    });
    await assert.rejects(client.pods.create(testPod("default", "web")), (error) => isApiError(error, "AlreadyExists"));
    await assert.rejects(
      client.nodes.get("", "missing"),
      (error) => isNotFound(error) && (error as ApiError).details.name === "missing",
    );
  });

  it("patches with a merge patch, returning Conflict when the patch pins a stale resourceVersion", async () => {
    const { client } = t;
    const created = await client.pods.create(testPod("default", "web"));
    const patched = await client.pods.patch("default", "web", { metadata: { labels: { app: null, tier: "front" } } });
    assert.deepEqual(patched.metadata?.labels, { tier: "front" });
    const status = await client.pods.patch(
      "default",
      "web",
      { status: { phase: "Failed" } },
      { subresource: "status" },
    );
    assert.equal(status.status?.phase, "Failed");
    await assert.rejects(
      client.pods.patch("default", "web", { metadata: { resourceVersion: created.metadata?.resourceVersion ?? "" } }),
      (error) => isConflict(error),
    );
  });

  it("binds a pod and mutates with retry", async () => {
    const { client } = t;
    const pod = await client.pods.create(testPod("default", "web"));
    await client.pods.bind("default", "web", "node-1", { uid: pod.metadata?.uid ?? "" });
    const bound = await client.pods.get("default", "web");
    assert.equal(bound.spec?.nodeName, "node-1");
    await assert.rejects(client.pods.bind("default", "web", "node-2"), (error) => isConflict(error));
    const mutated = await client.pods.mutate("default", "web", (draft) => {
      draft.metadata = { ...draft.metadata, annotations: { seen: "yes" } };
    });
    assert.equal(mutated.metadata?.annotations?.seen, "yes");
  });

  it("watches: ADDED, MODIFIED and DELETED in order, and nothing after stop", async () => {
    const { client } = t;
    const events: WatchEvent<Pod>[] = [];
    const watch = await client.pods.watch({ namespace: "default" }, (event) => events.push(event));
    await client.pods.create(testPod("default", "web"));
    await client.pods.patch("default", "web", { metadata: { labels: { v: "2" } } });
    // A write to another resource is not a pod event.
    await client.configMaps.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } });
    await client.pods.delete("default", "web", { gracePeriodSeconds: 0 });
    await eventually(() => events.some((e) => e.type === "DELETED"));
    watch.stop();
    assert.deepEqual(
      events.map((e) => e.type),
      ["ADDED", "MODIFIED", "MODIFIED", "DELETED"],
    );
    assert.equal(Object.isFrozen(events[0]?.object), true);
    await client.pods.create(testPod("default", "late"));
    await t.wallClock.sleep(20);
    assert.equal(events.length, 4, "no event after stop");
  });

  it("delivers Gone as an ERROR event, and an ERROR when the server ends the stream", async () => {
    const small = await startTestServer({ historyWindowRevisions: 2 });
    try {
      const first = await small.client.pods.create(testPod("default", "p0"));
      for (let i = 1; i < 6; i++) await small.client.pods.create(testPod("default", `p${i}`));
      const gone: WatchEvent<Pod>[] = [];
      await small.client.pods.watch({ resourceVersion: first.metadata?.resourceVersion ?? "" }, (e) => gone.push(e));
      const ended: WatchEvent<Pod>[] = [];
      await small.client.pods.watch({ resourceVersion: String(small.store.revision()) }, (e) => ended.push(e));
      await small.server.close();
      for (let spin = 0; spin < 400 && (gone.length === 0 || ended.length === 0); spin++) await t.wallClock.sleep(5);
      assert.equal(gone[0]?.type, "ERROR");
      assert.equal((gone[0]?.object as { code?: number } | undefined)?.code, 410);
      assert.equal(ended[0]?.type, "ERROR");
    } finally {
      await small.store.close();
    }
  });

  it("sends the bearer token as an Authorization header", async () => {
    const seen: (string | undefined)[] = [];
    const recorder = createServer((request, response) => {
      seen.push(request.headers.authorization);
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end(JSON.stringify({ apiVersion: "v1", kind: "Node", metadata: { name: "node-1" } }));
    });
    await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = recorder.address() as AddressInfo;
      const client = new HttpClient({ url: `http://127.0.0.1:${port}/`, bearerToken: "secret-token" });
      assert.equal((await client.nodes.get("", "node-1")).metadata?.name, "node-1");
      assert.deepEqual(seen, ["Bearer secret-token"]);
    } finally {
      await new Promise((resolve) => recorder.close(resolve));
    }
  });

  it("sends one request after another over a single kept-alive connection", async () => {
    let connections = 0;
    const recorder = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        response.writeHead(200, { "Content-Type": "application/json" });
        response.end(JSON.stringify({ apiVersion: "v1", kind: "Node", metadata: { name: "node-1" } }));
      });
    });
    recorder.on("connection", () => connections++);
    await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = recorder.address() as AddressInfo;
      const client = new HttpClient({ url: `http://127.0.0.1:${port}` });
      for (let i = 0; i < 30; i++) {
        if (i % 2 === 0) await client.nodes.get("", "node-1");
        else await client.nodes.create({ apiVersion: "v1", kind: "Node", metadata: { name: "node-1" } });
      }
      assert.equal(connections, 1);
    } finally {
      recorder.closeAllConnections();
      await new Promise((resolve) => recorder.close(resolve));
    }
  });

  it("keeps an informer in step with the server", async () => {
    const { client } = t;
    await client.pods.create(testPod("default", "before"));
    const logger = new Logger({ clock: t.clock, sink: new MemorySink() });
    const informer = new SharedInformer(client.pods, { clock: t.clock, rng: new Rng(7), logger, resyncPeriodMs: 0 });
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: (pod) => seen.push(`add ${pod.metadata?.name}`),
      onUpdate: (_old, pod) => seen.push(`update ${pod.metadata?.name}`),
      onDelete: (pod) => seen.push(`delete ${pod.metadata?.name}`),
    });
    informer.start();
    assert.equal(await informer.waitForSync(), true);
    await client.pods.create(testPod("default", "after"));
    await client.pods.patch("default", "before", { metadata: { labels: { v: "2" } } });
    await client.pods.delete("default", "after", { gracePeriodSeconds: 0 });
    await eventually(() => seen.includes("delete after"));
    informer.stop();
    assert.deepEqual(seen, ["add before", "add after", "update before", "update after", "delete after"]);
    assert.deepEqual(
      informer.lister.list().map((pod) => pod.metadata?.name),
      ["before"],
    );
  });
});
