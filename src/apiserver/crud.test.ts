import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { testPod } from "../api/client/testing/test-api.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

const pods = "/api/v1/namespaces/default/pods";

describe("resource requests", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  it("creates (201), gets and lists an object", async () => {
    const created = await t.call("POST", pods, testPod("default", "web"));
    assert.equal(created.status, 201);
    assert.equal((created.body.metadata as { uid?: string }).uid !== undefined, true);
    const fetched = await t.call("GET", `${pods}/web`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, created.body);
    const list = await t.call("GET", pods);
    assert.equal(list.body.kind, "PodList");
    assert.equal(list.body.apiVersion, "v1");
    assert.equal((list.body.metadata as { resourceVersion: string }).resourceVersion, String(t.store.revision()));
    assert.deepEqual(
      list.body.items?.map((p) => (p.metadata as { name: string }).name),
      ["web"],
    );
  });

  it("filters lists by label and field selectors and pages them", async () => {
    for (const name of ["a", "b", "c"]) await t.call("POST", pods, testPod("default", name));
    const byLabel = await t.call("GET", `${pods}?labelSelector=app%3Db`);
    assert.deepEqual(
      byLabel.body.items?.map((p) => (p.metadata as { name: string }).name),
      ["b"],
    );
    const byField = await t.call("GET", `${pods}?fieldSelector=metadata.name!%3Da`);
    assert.equal(byField.body.items?.length, 2);
    const first = await t.call("GET", `${pods}?limit=2`);
    assert.equal(first.body.items?.length, 2);
    const token = (first.body.metadata as { continue: string }).continue;
    assert.ok(token);
    const second = await t.call("GET", `${pods}?limit=2&continue=${encodeURIComponent(token)}`);
    assert.deepEqual(
      second.body.items?.map((p) => (p.metadata as { name: string }).name),
      ["c"],
    );
  });

  it("lists across namespaces and serves cluster-scoped kinds", async () => {
    await t.call("POST", pods, testPod("default", "web"));
    await t.call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "other" } });
    await t.call("POST", "/api/v1/namespaces/other/pods", testPod("other", "db"));
    const all = await t.call("GET", "/api/v1/pods");
    assert.equal(all.body.items?.length, 2);
    const sc = { apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: { name: "fast" }, provisioner: "x" };
    assert.equal((await t.call("POST", "/apis/storage.k8s.io/v1/storageclasses", sc)).status, 201);
    const fetched = await t.call("GET", "/apis/storage.k8s.io/v1/storageclasses/fast");
    assert.equal(fetched.body.provisioner, "x");
  });

  it("answers a missing object with a 404 NotFound Status", async () => {
    const { status, body } = await t.call("GET", `${pods}/nope`);
    assert.equal(status, 404);
    assert.equal(body.kind, "Status");
    assert.equal(body.reason, "NotFound");
    assert.equal(body.message, 'pods "nope" not found');
  });

  it("updates, and refuses a stale resourceVersion with 409 Conflict", async () => {
    const created = (await t.call("POST", pods, testPod("default", "web"))).body;
    const changed = { ...created, metadata: { ...(created.metadata as object), labels: { app: "v2" } } };
    const updated = await t.call("PUT", `${pods}/web`, changed);
    assert.equal(updated.status, 200);
    assert.deepEqual((updated.body.metadata as { labels: unknown }).labels, { app: "v2" });
    const stale = await t.call("PUT", `${pods}/web`, changed);
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, "Conflict");
  });

  it("writes status only through the status subresource", async () => {
    const created = (await t.call("POST", pods, testPod("default", "web"))).body;
    const running = { ...created, status: { phase: "Running" } };
    const main = await t.call("PUT", `${pods}/web`, running);
    assert.equal((main.body.status as { phase: string }).phase, "Pending");
    const status = await t.call("PUT", `${pods}/web/status`, { ...main.body, status: { phase: "Running" } });
    assert.equal(status.status, 200);
    assert.equal((status.body.status as { phase: string }).phase, "Running");
  });

  it("applies merge patches and JSON patches", async () => {
    await t.call("POST", pods, testPod("default", "web"));
    const merged = await t.call(
      "PATCH",
      `${pods}/web`,
      { metadata: { labels: { tier: "front" } } },
      "application/merge-patch+json",
    );
    assert.equal(merged.status, 200);
    assert.deepEqual((merged.body.metadata as { labels: unknown }).labels, { app: "web", tier: "front" });
    const ops = [
      { op: "test", path: "/metadata/labels/tier", value: "front" },
      { op: "remove", path: "/metadata/labels/app" },
      { op: "add", path: "/metadata/annotations", value: { "example.com/note": "1" } },
      { op: "replace", path: "/metadata/annotations/example.com~1note", value: "2" },
    ];
    const patched = await t.call("PATCH", `${pods}/web`, ops, "application/json-patch+json");
    assert.equal(patched.status, 200);
    assert.deepEqual((patched.body.metadata as { labels: unknown }).labels, { tier: "front" });
    assert.deepEqual((patched.body.metadata as { annotations: unknown }).annotations, { "example.com/note": "2" });
    const failing = [{ op: "test", path: "/metadata/labels/tier", value: "back" }];
    const refused = await t.call("PATCH", `${pods}/web`, failing, "application/json-patch+json");
    assert.equal(refused.status, 400);
    assert.match(String(refused.body.message), /test operation failed/);
  });

  it("answers a patch of an unknown type with 415 listing the accepted types", async () => {
    await t.call("POST", pods, testPod("default", "web"));
    const { status, body } = await t.call("PATCH", `${pods}/web`, { metadata: {} }, "application/x-unknown-patch");
    assert.equal(status, 415);
    assert.equal(body.reason, "UnsupportedMediaType");
    assert.match(String(body.message), /application\/strategic-merge-patch\+json/);
  });

  it("deletes gracefully, then at once with gracePeriodSeconds=0", async () => {
    await t.call("POST", pods, {
      ...testPod("default", "web"),
      spec: { ...testPod("default", "web").spec, nodeName: "n1" },
    });
    const graceful = await t.call("DELETE", `${pods}/web`);
    assert.equal(graceful.status, 200);
    assert.ok((graceful.body.metadata as { deletionTimestamp?: string }).deletionTimestamp);
    const forced = await t.call("DELETE", `${pods}/web?gracePeriodSeconds=0`);
    assert.equal(forced.status, 200);
    assert.equal((await t.call("GET", `${pods}/web`)).status, 404);
  });

  it("honours delete preconditions sent in a DeleteOptions body", async () => {
    await t.call("POST", "/api/v1/namespaces/default/configmaps", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c" },
    });
    const body = { kind: "DeleteOptions", apiVersion: "v1", preconditions: { uid: "someone-else" } };
    const refused = await t.call("DELETE", "/api/v1/namespaces/default/configmaps/c", body);
    assert.equal(refused.status, 409);
    assert.equal((await t.call("GET", "/api/v1/namespaces/default/configmaps/c")).status, 200);
  });

  it("binds a pod through pods/binding", async () => {
    await t.call("POST", pods, testPod("default", "web"));
    const binding = {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "web" },
      target: { kind: "Node", name: "node-1" },
    };
    const bound = await t.call("POST", `${pods}/web/binding`, binding);
    assert.equal(bound.status, 201);
    assert.equal(bound.body.status, "Success");
    const pod = await t.call("GET", `${pods}/web`);
    assert.equal((pod.body.spec as { nodeName: string }).nodeName, "node-1");
    const again = await t.call("POST", `${pods}/web/binding`, { ...binding, target: { name: "node-2" } });
    assert.equal(again.status, 409);
  });

  it("refuses a method a path does not serve with 405", async () => {
    const { status, body } = await t.call("DELETE", pods);
    assert.equal(status, 405);
    assert.equal(body.reason, "MethodNotAllowed");
  });
});
