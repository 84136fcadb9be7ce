import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { servedGitVersion } from "./constants.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

describe("discovery", () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it("reports the served Kubernetes version", async () => {
    const { status, body } = await t.call("GET", "/version");
    assert.equal(status, 200);
    assert.equal(body.gitVersion, servedGitVersion);
    assert.equal(body.major, "1");
    assert.equal(body.minor, "31");
    assert.match(servedGitVersion, /^v1\.31\.0-kvol$/);
  });

  it("answers health checks", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      const { status, body } = await t.call("GET", path);
      assert.equal(status, 200, path);
      assert.equal(body.text, "ok");
    }
  });

  it("lists the core version and the named groups", async () => {
    const core = await t.call("GET", "/api");
    assert.deepEqual(core.body.versions, ["v1"]);
    const groups = await t.call("GET", "/apis");
    assert.equal(groups.body.kind, "APIGroupList");
    const names = (groups.body.groups as { name: string }[]).map((g) => g.name);
    assert.deepEqual(names, [
      "storage.k8s.io",
      "apps",
      "coordination.k8s.io",
      "batch",
      "rbac.authorization.k8s.io",
      "authentication.k8s.io",
      "authorization.k8s.io",
      "snapshot.storage.k8s.io",
    ]);
  });

  it("describes each resource with its verbs, short names and subresources", async () => {
    const { status, body } = await t.call("GET", "/api/v1");
    assert.equal(status, 200);
    assert.equal(body.groupVersion, "v1");
    const resources = body.resources as Record<string, unknown>[];
    const pods = resources.find((r) => r.name === "pods");
    assert.deepEqual(pods, {
      name: "pods",
      singularName: "pod",
      namespaced: true,
      kind: "Pod",
      verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
      shortNames: ["po"],
      categories: ["all"],
    });
    const names = resources.map((r) => r.name);
    assert.ok(names.includes("pods/status"));
    assert.ok(names.includes("pods/binding"));
    assert.ok(!names.includes("secrets/status"), "secrets have no status subresource");
    const storage = await t.call("GET", "/apis/storage.k8s.io/v1");
    const sc = (storage.body.resources as Record<string, unknown>[]).find((r) => r.name === "storageclasses");
    assert.equal(sc?.namespaced, false);
    assert.deepEqual(sc?.shortNames, ["sc"]);
  });

  it("answers an unknown path with a 404 Status", async () => {
    for (const path of ["/apis/example.com/v1", "/api/v1/widgets", "/api/v1/namespaces/default/nodes/x"]) {
      const { status, body } = await t.call("GET", path);
      assert.equal(status, 404, path);
      assert.equal(body.kind, "Status");
      assert.equal(body.reason, "NotFound");
    }
  });
});
